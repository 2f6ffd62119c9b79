//! Deterministic replay of sliced StableHLO programs for ZKDV checks.
//!
//! This crate holds the CPU reference interpreter ([`Interpreter`], one
//! evaluation loop dispatching on the op name to the pure op functions of
//! [`ops`]) and its conformance runner ([`conformance`]); with the cargo
//! feature `cuda`, the CUDA backend (module `cuda`, see `DESIGN.md` §6)
//! computes some of those ops on a GPU with bit-identical results
//! ([`Backend`] selects it). The boundary value type is
//! [`HostTensor`], a dense row-major little-endian tensor in host memory
//! whose dtypes are the canonical ones of `zkdv-hashing`, so a replayed value
//! can be committed exactly as production committed it.

#![deny(missing_docs)]

pub mod attrs;
pub mod conformance;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod interpreter;
pub mod libm;
pub mod manual;
pub mod ops;
pub mod parallel;
pub mod profile;
pub mod program;
pub mod rounding;
pub mod value;

pub use interpreter::{Interpreter, Limits};
pub use program::Program;
pub use rounding::Rounding;
pub use value::{Data, ElementType, Tensor, TensorType, ValueError};

use zkdv_hashing::{commit_tensor, DType, HashError, TensorCommitment};

/// Errors of the runtime.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// A buffer does not hold `product(shape) * size(dtype)` bytes.
    #[error("a {dtype} tensor of shape {shape:?} needs {expected} bytes, got {actual}")]
    BufferSize {
        /// Element type.
        dtype: DType,
        /// Dimensions.
        shape: Vec<u64>,
        /// Required bytes.
        expected: u128,
        /// Bytes given.
        actual: usize,
    },
    /// A flat element index outside the tensor.
    #[error("element {index} is outside a tensor of {len} elements")]
    IndexOutOfRange {
        /// The index.
        index: u64,
        /// Number of elements.
        len: u64,
    },
    /// Hashing failed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// An op (or function shape) the interpreter does not execute.
    #[error("{location}: unsupported op `{op}`")]
    Unsupported {
        /// The op name.
        op: String,
        /// Where it is, `file:line:col`.
        location: String,
    },
    /// A type the interpreter does not execute.
    #[error("{location}: `{op}` uses unsupported type `{ty}`")]
    UnsupportedType {
        /// The op name.
        op: String,
        /// Where it is.
        location: String,
        /// The type.
        ty: String,
    },
    /// An op whose operands, attributes or results are not what it accepts.
    #[error("{location}: `{op}`: {source}")]
    Op {
        /// The op name.
        op: String,
        /// Where it is.
        location: String,
        /// What is wrong.
        source: ValueError,
    },
    /// A module that cannot be executed as written.
    #[error("{location}: `{op}`: {message}")]
    Malformed {
        /// The op name.
        op: String,
        /// Where it is.
        location: String,
        /// What is wrong.
        message: String,
    },
    /// The number of inputs differs from the function's arguments.
    #[error("the function takes {expected} inputs, got {actual}")]
    InputCount {
        /// Arguments of the function.
        expected: usize,
        /// Inputs given.
        actual: usize,
    },
    /// An input of the wrong type or shape.
    #[error("input {index}: {message}")]
    Input {
        /// Position of the input.
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// The selected backend cannot run (no CUDA driver or device, kernels
    /// that do not compile, a failed device copy or launch).
    #[error("backend: {0}")]
    Backend(String),
    /// The run went past one of its [`interpreter::Limits`].
    #[error("{location}: `{op}`: {message}")]
    Limit {
        /// The op at which the limit was hit.
        op: String,
        /// Where it is.
        location: String,
        /// Which limit, and its value.
        message: String,
    },
}

/// Where the ops of a run execute.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backend {
    /// The CPU reference interpreter only.
    #[default]
    Cpu,
    /// The CUDA backend (module `cuda`) for the ops it covers, the CPU
    /// interpreter for the rest; results are bit-identical to `Cpu`.
    #[cfg(feature = "cuda")]
    Cuda,
}

impl RuntimeError {
    /// Attaches `op`'s name and location to a value error.
    pub fn from_value(op: &melior::ir::OperationRef<'_, '_>, error: ValueError) -> Self {
        let name = zkdv_ir::op_name(op);
        let location = zkdv_ir::format_location(melior::ir::operation::OperationLike::location(op));
        match error {
            ValueError::UnsupportedType(ty) => RuntimeError::UnsupportedType {
                op: name,
                location,
                ty,
            },
            source => RuntimeError::Op {
                op: name,
                location,
                source,
            },
        }
    }
}

/// A dense tensor in host memory: row-major, little-endian.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTensor {
    dtype: DType,
    shape: Vec<u64>,
    bytes: Vec<u8>,
}

fn element_count(shape: &[u64]) -> u128 {
    shape.iter().map(|&d| u128::from(d)).product()
}

impl HostTensor {
    /// Wrap `bytes` after checking their length against dtype and shape.
    pub fn from_bytes(dtype: DType, shape: Vec<u64>, bytes: Vec<u8>) -> Result<Self, RuntimeError> {
        let expected = element_count(&shape) * dtype.size_bytes() as u128;
        if expected != bytes.len() as u128 {
            return Err(RuntimeError::BufferSize {
                dtype,
                shape,
                expected,
                actual: bytes.len(),
            });
        }
        Ok(HostTensor {
            dtype,
            shape,
            bytes,
        })
    }

    /// A tensor of zeros (all-zero bytes: +0.0, 0 or false in every dtype).
    pub fn zeros(dtype: DType, shape: Vec<u64>) -> Result<Self, RuntimeError> {
        let expected = element_count(&shape) * dtype.size_bytes() as u128;
        let len = usize::try_from(expected).map_err(|_| RuntimeError::BufferSize {
            dtype,
            shape: shape.clone(),
            expected,
            actual: 0,
        })?;
        Self::from_bytes(dtype, shape, vec![0; len])
    }

    /// An `f32` tensor from values.
    pub fn from_f32(shape: Vec<u64>, values: &[f32]) -> Result<Self, RuntimeError> {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Self::from_bytes(DType::F32, shape, bytes)
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Dimensions.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Number of elements.
    pub fn len(&self) -> u64 {
        (self.bytes.len() / self.dtype.size_bytes()) as u64
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The raw little-endian bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes of element `index` (row-major flat index).
    pub fn element_bytes(&self, index: u64) -> Result<&[u8], RuntimeError> {
        let size = self.dtype.size_bytes();
        let start = usize::try_from(index)
            .ok()
            .filter(|_| index < self.len())
            .ok_or(RuntimeError::IndexOutOfRange {
                index,
                len: self.len(),
            })?
            * size;
        Ok(&self.bytes[start..start + size])
    }

    /// The canonical commitment of this tensor (`zkdv_hashing::commit_tensor`).
    pub fn commit(&self) -> Result<TensorCommitment, RuntimeError> {
        Ok(commit_tensor(self.dtype, &self.shape, &self.bytes)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        assert!(HostTensor::from_bytes(DType::F32, vec![2, 3], vec![0; 24]).is_ok());
        let err = HostTensor::from_bytes(DType::F32, vec![2, 3], vec![0; 20]).unwrap_err();
        assert!(err.to_string().contains("needs 24 bytes, got 20"), "{err}");
        assert!(HostTensor::zeros(DType::U8, vec![u64::MAX, u64::MAX]).is_err());
        let scalar = HostTensor::zeros(DType::BF16, vec![]).unwrap();
        assert_eq!((scalar.len(), scalar.bytes().len()), (1, 2));
    }

    #[test]
    fn elements_and_commitments() {
        let t = HostTensor::from_f32(vec![2, 2], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(t.element_bytes(2).unwrap(), 3.0f32.to_le_bytes());
        assert!(t.element_bytes(4).is_err());
        let same = commit_tensor(DType::F32, &[2, 2], t.bytes()).unwrap();
        assert_eq!(t.commit().unwrap().digest(), same.digest());
        let reshaped = HostTensor::from_bytes(DType::F32, vec![4], t.bytes().to_vec()).unwrap();
        assert_ne!(reshaped.commit().unwrap().digest(), same.digest());
    }
}
