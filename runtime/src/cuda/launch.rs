//! The one way the CUDA backend launches a kernel: [`CudaBackend::launch`]
//! takes the serializing lock, copies the host inputs to the device,
//! allocates the output, launches, and copies the output back. It holds the
//! backend's only `unsafe` launch.
//!
//! Soundness rests on the kernel table ([`KERNELS`]): each kernel of
//! `kernels.cu` is listed with its parameter list and a bounds check saying
//! which elements it reads and writes for given arguments. Before anything
//! is copied, `launch` checks the arguments against both (parameter kinds
//! and element types in order, buffer lengths against the bounds), so a
//! launch can neither pass a parameter of the wrong type nor let a thread
//! index past a buffer. Invariant: `kernels.cu` and [`KERNELS`] change
//! together.

use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits};

use super::{backend_error, CudaBackend};
use crate::RuntimeError;

/// The element type of a kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Elem {
    /// `unsigned char`.
    U8,
    /// `int`.
    I32,
    /// `u32` (`unsigned int`).
    U32,
    /// `u64` (`unsigned long long`).
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

/// One parameter of a kernel, as `kernels.cu` declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Param {
    /// `const T*`: a host slice copied to the device.
    In(Elem),
    /// `T*`: the output buffer.
    Out(Elem),
    /// `T` by value.
    Scalar(Elem),
}

/// A host slice to copy to the device for a `const T*` parameter.
#[derive(Debug, Clone, Copy)]
pub(super) enum Host<'h> {
    /// `const unsigned char*`.
    U8(&'h [u8]),
    /// `const u32*`.
    U32(&'h [u32]),
    /// `const u64*`.
    U64(&'h [u64]),
    /// `const float*`.
    F32(&'h [f32]),
    /// `const double*`.
    F64(&'h [f64]),
}

/// A scalar parameter.
#[derive(Debug, Clone, Copy)]
pub(super) enum Value {
    /// `int`.
    I32(i32),
    /// `u32`.
    U32(u32),
    /// `u64`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
}

/// One argument of a launch, in the kernel's parameter order.
#[derive(Debug, Clone, Copy)]
pub(super) enum Arg<'h> {
    /// A host slice, copied to the device before the launch.
    In(Host<'h>),
    /// The output buffer: the launch's element type and output length.
    Out,
    /// A scalar.
    Scalar(Value),
}

/// `Arg::In` of a host slice.
pub(super) fn input<'h>(values: impl Into<Host<'h>>) -> Arg<'h> {
    Arg::In(values.into())
}

/// `Arg::Scalar` of a value.
pub(super) fn scalar(value: impl Into<Value>) -> Arg<'static> {
    Arg::Scalar(value.into())
}

macro_rules! conversions {
    ($($t:ty => $variant:ident),* $(,)?) => {
        $(
            impl<'h> From<&'h [$t]> for Host<'h> {
                fn from(values: &'h [$t]) -> Self {
                    Host::$variant(values)
                }
            }
        )*
    };
}
conversions!(u8 => U8, u32 => U32, u64 => U64, f32 => F32, f64 => F64);

macro_rules! values {
    ($($t:ty => $variant:ident),* $(,)?) => {
        $(
            impl From<$t> for Value {
                fn from(value: $t) -> Self {
                    Value::$variant(value)
                }
            }
        )*
    };
}
values!(i32 => I32, u32 => U32, u64 => U64, f32 => F32, f64 => F64);

/// An element type a kernel writes its output in.
pub(super) trait Output: DeviceRepr + ValidAsZeroBits + Default + Clone {
    /// Its [`Elem`].
    const ELEM: Elem;
}

impl Output for u8 {
    const ELEM: Elem = Elem::U8;
}
impl Output for u32 {
    const ELEM: Elem = Elem::U32;
}
impl Output for u64 {
    const ELEM: Elem = Elem::U64;
}
impl Output for f32 {
    const ELEM: Elem = Elem::F32;
}
impl Output for f64 {
    const ELEM: Elem = Elem::F64;
}

impl Host<'_> {
    fn elem(&self) -> Elem {
        match self {
            Host::U8(_) => Elem::U8,
            Host::U32(_) => Elem::U32,
            Host::U64(_) => Elem::U64,
            Host::F32(_) => Elem::F32,
            Host::F64(_) => Elem::F64,
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn len(&self) -> usize {
        match self {
            Host::U8(v) => v.len(),
            Host::U32(v) => v.len(),
            Host::U64(v) => v.len(),
            Host::F32(v) => v.len(),
            Host::F64(v) => v.len(),
        }
    }
}

impl Value {
    fn elem(&self) -> Elem {
        match self {
            Value::I32(_) => Elem::I32,
            Value::U32(_) => Elem::U32,
            Value::U64(_) => Elem::U64,
            Value::F32(_) => Elem::F32,
            Value::F64(_) => Elem::F64,
        }
    }
}

/// A kernel of `kernels.cu`: its name, its parameters in order, and its
/// bounds: whether every element it reads or writes for `args` (already
/// checked against `params`) lies in the buffers, `out` being the output's
/// length.
pub(super) struct Kernel {
    /// The `extern "C"` name.
    pub(super) name: &'static str,
    params: &'static [Param],
    bounds: fn(args: &[Arg<'_>], out: usize) -> bool,
}

use Elem::{F32, F64, I32, U32, U64, U8};
use Param::{In, Out, Scalar};

/// Every kernel of `kernels.cu`, with its parameters and bounds.
pub(super) const KERNELS: &[Kernel] = &[
    elementwise(
        "binary_f32",
        &[In(F32), In(F32), Out(F32), Scalar(U64), Scalar(I32)],
    ),
    elementwise(
        "binary_f64",
        &[In(F64), In(F64), Out(F64), Scalar(U64), Scalar(I32)],
    ),
    elementwise(
        "compare_f32",
        &[
            In(F32),
            In(F32),
            Out(U8),
            Scalar(U64),
            Scalar(I32),
            Scalar(I32),
        ],
    ),
    elementwise(
        "compare_f64",
        &[
            In(F64),
            In(F64),
            Out(U8),
            Scalar(U64),
            Scalar(I32),
            Scalar(I32),
        ],
    ),
    Kernel {
        name: "dot_f32",
        params: &[
            In(F32),
            In(F32),
            Out(F32),
            Scalar(U64),
            Scalar(U64),
            Scalar(U64),
            Scalar(U64),
        ],
        bounds: dot_bounds,
    },
    Kernel {
        name: "dot_f64",
        params: &[
            In(F64),
            In(F64),
            Out(F64),
            Scalar(U64),
            Scalar(U64),
            Scalar(U64),
            Scalar(U64),
        ],
        bounds: dot_bounds,
    },
    Kernel {
        name: "reduce_add_f32",
        params: &[
            In(F32),
            In(U64),
            In(U64),
            Out(F32),
            Scalar(U64),
            Scalar(U64),
            Scalar(F32),
        ],
        bounds: reduce_bounds,
    },
    Kernel {
        name: "reduce_add_f64",
        params: &[
            In(F64),
            In(U64),
            In(U64),
            Out(F64),
            Scalar(U64),
            Scalar(U64),
            Scalar(F64),
        ],
        bounds: reduce_bounds,
    },
    Kernel {
        name: "select_w32",
        params: &[In(U8), Scalar(U64), In(U32), In(U32), Out(U32), Scalar(U64)],
        bounds: select_bounds,
    },
    Kernel {
        name: "select_w64",
        params: &[In(U8), Scalar(U64), In(U64), In(U64), Out(U64), Scalar(U64)],
        bounds: select_bounds,
    },
    elementwise("negate_w32", &[In(U32), Out(U32), Scalar(U64), Scalar(U32)]),
    elementwise("negate_w64", &[In(U64), Out(U64), Scalar(U64), Scalar(U64)]),
    elementwise("abs_w32", &[In(U32), Out(U32), Scalar(U64), Scalar(U32)]),
    elementwise("abs_w64", &[In(U64), Out(U64), Scalar(U64), Scalar(U64)]),
];

/// A kernel whose thread `i < n` reads element `i` of every input and
/// writes element `i` of the output, `n` its first `u64` scalar.
const fn elementwise(name: &'static str, params: &'static [Param]) -> Kernel {
    Kernel {
        name,
        params,
        bounds: elementwise_bounds,
    }
}

/// The `u64` scalars of `args`, in order.
fn counts(args: &[Arg<'_>]) -> Vec<u64> {
    args.iter()
        .filter_map(|arg| match arg {
            Arg::Scalar(Value::U64(v)) => Some(*v),
            _ => None,
        })
        .collect()
}

/// The host slices of `args`, in order.
fn inputs<'a, 'h>(args: &'a [Arg<'h>]) -> Vec<&'a Host<'h>> {
    args.iter()
        .filter_map(|arg| match arg {
            Arg::In(host) => Some(host),
            _ => None,
        })
        .collect()
}

/// Whether `n` fits every buffer: each input and the output hold at least
/// `n` elements.
fn all_hold(args: &[Arg<'_>], out: usize, n: u64) -> bool {
    usize::try_from(n).is_ok_and(|n| out >= n && inputs(args).iter().all(|h| h.len() >= n))
}

fn elementwise_bounds(args: &[Arg<'_>], out: usize) -> bool {
    counts(args)
        .first()
        .is_some_and(|&n| all_hold(args, out, n))
}

/// `dot`: `a` holds `batch*rows*depth`, `b` `batch*depth*cols`, the output
/// `batch*rows*cols` elements.
fn dot_bounds(args: &[Arg<'_>], out: usize) -> bool {
    let (counts, inputs) = (counts(args), inputs(args));
    let (&[batch, rows, depth, cols], &[a, b]) = (counts.as_slice(), inputs.as_slice()) else {
        return false;
    };
    let size = |x: u64, y: u64, z: u64| {
        x.checked_mul(y)
            .and_then(|xy| xy.checked_mul(z))
            .and_then(|n| usize::try_from(n).ok())
    };
    size(batch, rows, depth).is_some_and(|n| a.len() >= n)
        && size(batch, depth, cols).is_some_and(|n| b.len() >= n)
        && size(batch, rows, cols).is_some_and(|n| out >= n)
}

/// `reduce_add`: `bases` holds `outputs` and `offsets` `count` elements,
/// the output `outputs`, and every `bases[i] + offsets[j]` indexes `input`.
fn reduce_bounds(args: &[Arg<'_>], out: usize) -> bool {
    let (counts, inputs) = (counts(args), inputs(args));
    let (&[outputs, count], &[input, Host::U64(bases), Host::U64(offsets)]) =
        (counts.as_slice(), inputs.as_slice())
    else {
        return false;
    };
    let (Ok(outputs), Ok(count)) = (usize::try_from(outputs), usize::try_from(count)) else {
        return false;
    };
    if bases.len() < outputs || offsets.len() < count || out < outputs {
        return false;
    }
    let largest = |v: &[u64]| v.iter().copied().max();
    match (largest(&bases[..outputs]), largest(&offsets[..count])) {
        (Some(base), Some(offset)) => base
            .checked_add(offset)
            .and_then(|last| usize::try_from(last).ok())
            .is_some_and(|last| last < input.len()),
        // No thread reads `input`.
        _ => true,
    }
}

/// `select`: `pred` holds one element (`pred_len == 1`) or `n`; `t`, `f`
/// and the output hold `n`.
fn select_bounds(args: &[Arg<'_>], out: usize) -> bool {
    let (counts, inputs) = (counts(args), inputs(args));
    let (&[pred_len, n], &[pred, t, f]) = (counts.as_slice(), inputs.as_slice()) else {
        return false;
    };
    let pred_holds = if pred_len == 1 {
        !pred.is_empty()
    } else {
        usize::try_from(n).is_ok_and(|n| pred.len() >= n)
    };
    pred_holds && usize::try_from(n).is_ok_and(|n| t.len() >= n && f.len() >= n && out >= n)
}

/// A host slice on the device.
enum Device {
    U8(CudaSlice<u8>),
    U32(CudaSlice<u32>),
    U64(CudaSlice<u64>),
    F32(CudaSlice<f32>),
    F64(CudaSlice<f64>),
}

impl CudaBackend {
    /// Runs kernel `name` with `args` (in its parameter order, one of them
    /// [`Arg::Out`]) on `config`'s grid, and returns the first `out_len`
    /// elements of its output. An error, before anything runs, when the
    /// arguments do not fit the kernel's entry in [`KERNELS`].
    pub(super) fn launch<T: Output>(
        &self,
        name: &str,
        config: LaunchConfig,
        out_len: usize,
        args: &[Arg<'_>],
    ) -> Result<Vec<T>, RuntimeError> {
        let kernel = KERNELS
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| RuntimeError::Backend(format!("CUDA: no kernel {name}")))?;
        let kinds_match = args.len() == kernel.params.len()
            && args
                .iter()
                .zip(kernel.params)
                .all(|(arg, param)| match (arg, param) {
                    (Arg::In(host), Param::In(elem)) => host.elem() == *elem,
                    (Arg::Out, Param::Out(elem)) => T::ELEM == *elem,
                    (Arg::Scalar(value), Param::Scalar(elem)) => value.elem() == *elem,
                    _ => false,
                });
        if !kinds_match || !(kernel.bounds)(args, out_len) {
            return Err(RuntimeError::Backend(format!(
                "CUDA: arguments that do not fit kernel {name}"
            )));
        }
        let _guard = self.guard()?;
        let function = self.kernel(name)?;
        let mut uploads = Vec::with_capacity(args.len());
        for arg in args {
            uploads.push(match arg {
                Arg::In(Host::U8(v)) => Some(Device::U8(self.upload(v)?)),
                Arg::In(Host::U32(v)) => Some(Device::U32(self.upload(v)?)),
                Arg::In(Host::U64(v)) => Some(Device::U64(self.upload(v)?)),
                Arg::In(Host::F32(v)) => Some(Device::F32(self.upload(v)?)),
                Arg::In(Host::F64(v)) => Some(Device::F64(self.upload(v)?)),
                Arg::Out | Arg::Scalar(_) => None,
            });
        }
        let mut out = self.output::<T>(out_len)?;
        let mut out_slot = Some(&mut out);
        let mut launch = self.stream.launch_builder(function);
        for (arg, upload) in args.iter().zip(&uploads) {
            match (arg, upload) {
                (_, Some(Device::U8(slice))) => launch.arg(slice),
                (_, Some(Device::U32(slice))) => launch.arg(slice),
                (_, Some(Device::U64(slice))) => launch.arg(slice),
                (_, Some(Device::F32(slice))) => launch.arg(slice),
                (_, Some(Device::F64(slice))) => launch.arg(slice),
                (Arg::Scalar(Value::I32(v)), None) => launch.arg(v),
                (Arg::Scalar(Value::U32(v)), None) => launch.arg(v),
                (Arg::Scalar(Value::U64(v)), None) => launch.arg(v),
                (Arg::Scalar(Value::F32(v)), None) => launch.arg(v),
                (Arg::Scalar(Value::F64(v)), None) => launch.arg(v),
                (_, None) => match out_slot.take() {
                    Some(out) => launch.arg(out),
                    // A second `Out`: its kind check passed, but the kernel
                    // table has one output per kernel, so this never runs.
                    None => {
                        return Err(RuntimeError::Backend(format!(
                            "CUDA: kernel {name} given two outputs"
                        )))
                    }
                },
            };
        }
        // SAFETY: the arguments were checked above against the kernel's
        // entry in `KERNELS`, which mirrors its declaration in `kernels.cu`:
        // one argument per parameter, each of the declared kind and element
        // type (device pointers for `In`/`Out`, values for scalars), pushed
        // in that order; and its bounds check passed, so every element a
        // thread reads or writes lies in the uploaded inputs (each at least
        // as long as its host slice) and the `out_len`-element output. The
        // buffers outlive the launch, which runs on this backend's stream
        // while `_guard` serializes ops.
        unsafe { launch.launch(config) }.map_err(|e| backend_error(name, e))?;
        self.download(&out, out_len)
    }
}
