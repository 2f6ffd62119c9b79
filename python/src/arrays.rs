//! numpy arrays read in place: the one conversion from Python arrays that
//! hashing (little-endian bytes to commit) and the runtime (tensors to run)
//! share. A guard borrows the array read-only for the call, so its buffer
//! can be read after the GIL is released.

use numpy::{PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use zkdv_hashing as hashing;

use crate::value_error;

/// An input array, borrowed for the call.
pub(crate) enum InputGuard<'py> {
    F32(numpy::PyReadonlyArrayDyn<'py, f32>),
    F64(numpy::PyReadonlyArrayDyn<'py, f64>),
    I32(numpy::PyReadonlyArrayDyn<'py, i32>),
    I64(numpy::PyReadonlyArrayDyn<'py, i64>),
    U32(numpy::PyReadonlyArrayDyn<'py, u32>),
    U64(numpy::PyReadonlyArrayDyn<'py, u64>),
    Bool(numpy::PyReadonlyArrayDyn<'py, bool>),
    Parts(String, Vec<u64>, PyReadonlyArray1<'py, u8>),
}

/// An input's elements, readable without the GIL.
pub(crate) enum InputView<'a> {
    F32(Vec<usize>, &'a [f32]),
    F64(Vec<usize>, &'a [f64]),
    I32(Vec<usize>, &'a [i32]),
    I64(Vec<usize>, &'a [i64]),
    U32(Vec<usize>, &'a [u32]),
    U64(Vec<usize>, &'a [u64]),
    Bool(Vec<usize>, &'a [bool]),
    Bytes(hashing::DType, &'a [u64], &'a [u8]),
}

impl<'py> InputGuard<'py> {
    pub(crate) fn extract(input: &Bound<'py, PyAny>) -> PyResult<Self> {
        macro_rules! array {
            ($variant:ident, $t:ty) => {
                if let Ok(array) = input.cast::<numpy::PyArrayDyn<$t>>() {
                    return Ok(Self::$variant(array.try_readonly()?));
                }
            };
        }
        array!(F32, f32);
        array!(F64, f64);
        array!(I32, i32);
        array!(I64, i64);
        array!(U32, u32);
        array!(U64, u64);
        array!(Bool, bool);
        let (tag, shape, data) =
            input.extract::<(String, Vec<u64>, PyReadonlyArray1<'py, u8>)>()?;
        Ok(Self::Parts(tag, shape, data))
    }

    pub(crate) fn view(&self) -> PyResult<InputView<'_>> {
        macro_rules! view {
            ($variant:ident, $array:expr) => {
                InputView::$variant($array.shape().to_vec(), $array.as_slice()?)
            };
        }
        Ok(match self {
            Self::F32(a) => view!(F32, a),
            Self::F64(a) => view!(F64, a),
            Self::I32(a) => view!(I32, a),
            Self::I64(a) => view!(I64, a),
            Self::U32(a) => view!(U32, a),
            Self::U64(a) => view!(U64, a),
            Self::Bool(a) => view!(Bool, a),
            Self::Parts(tag, shape, data) => InputView::Bytes(
                hashing::DType::from_tag(tag).map_err(value_error)?,
                shape,
                data.as_slice()?,
            ),
        })
    }
}

impl InputGuard<'_> {
    /// The dtype, shape and little-endian bytes of the array.
    pub(crate) fn le_bytes(
        &self,
    ) -> PyResult<(hashing::DType, Vec<u64>, std::borrow::Cow<'_, [u8]>)> {
        use hashing::DType;
        macro_rules! bytes {
            ($array:expr, $dtype:expr, $to_bytes:expr) => {{
                let shape = $array.shape().iter().map(|&d| d as u64).collect();
                let bytes = $array.as_slice()?.iter().flat_map($to_bytes).collect();
                ($dtype, shape, std::borrow::Cow::Owned(bytes))
            }};
        }
        Ok(match self {
            Self::F32(a) => bytes!(a, DType::F32, |x: &f32| x.to_le_bytes()),
            Self::F64(a) => bytes!(a, DType::F64, |x: &f64| x.to_le_bytes()),
            Self::I32(a) => bytes!(a, DType::I32, |x: &i32| x.to_le_bytes()),
            Self::I64(a) => bytes!(a, DType::I64, |x: &i64| x.to_le_bytes()),
            Self::U32(a) => bytes!(a, DType::U32, |x: &u32| x.to_le_bytes()),
            Self::U64(a) => bytes!(a, DType::U64, |x: &u64| x.to_le_bytes()),
            Self::Bool(a) => bytes!(a, DType::I1, |x: &bool| [u8::from(*x)]),
            Self::Parts(tag, shape, data) => (
                DType::from_tag(tag).map_err(value_error)?,
                shape.clone(),
                std::borrow::Cow::Borrowed(data.as_slice()?),
            ),
        })
    }
}

impl InputView<'_> {
    pub(crate) fn tensor(self) -> Result<zkdv_runtime::Tensor, String> {
        use zkdv_runtime::{Data, ElementType, Tensor};
        let (element, shape, data) = match self {
            Self::Bytes(dtype, shape, bytes) => {
                return Tensor::from_le_bytes(dtype, shape, bytes).map_err(|e| e.to_string())
            }
            Self::F32(shape, v) => (ElementType::F32, shape, Data::F32(v.to_vec())),
            Self::F64(shape, v) => (ElementType::F64, shape, Data::F64(v.to_vec())),
            Self::I32(shape, v) => (
                ElementType::Signed(32),
                shape,
                Data::Signed(v.iter().map(|&x| i64::from(x)).collect()),
            ),
            Self::I64(shape, v) => (ElementType::Signed(64), shape, Data::Signed(v.to_vec())),
            Self::U32(shape, v) => (
                ElementType::Unsigned(32),
                shape,
                Data::Unsigned(v.iter().map(|&x| u64::from(x)).collect()),
            ),
            Self::U64(shape, v) => (ElementType::Unsigned(64), shape, Data::Unsigned(v.to_vec())),
            Self::Bool(shape, v) => (ElementType::I1, shape, Data::Bool(v.to_vec())),
        };
        Tensor::new(element, shape, data).map_err(|e| e.to_string())
    }
}
