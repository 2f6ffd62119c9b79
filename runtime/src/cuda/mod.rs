//! The CUDA backend (cargo feature `cuda`): some ops of a run computed on a
//! GPU, bit-identical to the CPU reference interpreter.
//!
//! # Loading
//!
//! cudarc loads `libcuda` and `libnvrtc` dynamically, when the backend is
//! first opened ([`CudaBackend::global`]), so the crate builds, links and
//! runs its CPU tests on machines without the CUDA toolkit or driver. Opening
//! checks that both libraries load before calling into them and answers
//! [`RuntimeError::Backend`] ("no CUDA driver", "no NVRTC", no device) instead
//! of panicking. Device 0 is used. The bindings are those of CUDA 13.0
//! (cudarc feature `cuda-13000`: the toolkit and driver of the lent GPU
//! machines); libnvrtc is looked up as `libnvrtc.so`, `.so.13`, then
//! `.so.12` and older.
//!
//! # Kernels and determinism
//!
//! The kernels (`kernels.cu`, CUDA C++) are compiled once with NVRTC
//! with `--fmad=false --ftz=false --prec-div=true --prec-sqrt=true`, and
//! every float operation is written with an explicit round-to-nearest
//! intrinsic (`__fadd_rn`, `__fmul_rn`, `__ddiv_rn`, ...), which the
//! compiler never contracts into an FMA: each is the same single IEEE
//! operation the CPU interpreter performs, subnormals included.
//!
//! NaN results follow the host CPU's rules, as the interpreter's results
//! do (they come from the CPU's own `+ - * /`): a NaN operand is returned
//! quieted (the first one when both are NaN; on aarch64 a signalling one
//! first), and an invalid operation (`inf - inf`, `0 * inf`, `0 / 0`)
//! gives the host's default NaN (`0xffc00000`/`0xfff8000000000000` on
//! x86_64, the positive ones on aarch64). Which operand a CPU instruction
//! sees first is the compiler's choice when both are NaN, so only there
//! can payloads differ: on x86_64 the interpreter's `add`/`multiply` of two
//! NaNs returns the first operand's payload in a debug build and the
//! second's in a release build (LLVM commutes them), so the CPU itself is
//! not payload-deterministic there, and neither side can match both.
//!
//! What is covered (everything else is declined with `Ok(None)` and runs
//! on the CPU):
//!
//! * `add`, `subtract`, `multiply`, `divide`, `maximum`, `minimum` on `f32`
//!   and `f64` (`maximum`/`minimum` with the rules of
//!   [`crate::ops::elementwise`]: a NaN operand is returned as is, the
//!   first when both are; `max(-0, +0) = +0`, `min(-0, +0) = -0`);
//!   `negate` and `abs` (sign-bit operations) on float tensors.
//! * `compare` on float tensors (IEEE order, or IEEE totalOrder for
//!   `TOTALORDER`), and `select` on float and integer tensors.
//! * `dot_general` with an `f32` or `f64` result: the operands are
//!   converted and arranged on the host exactly as the CPU path does
//!   ([`crate::ops::linalg`]), then one GPU thread per output element
//!   sums `p_k = lhs_k * rhs_k` over the contracting index `k` in row-major
//!   order of the contracting dimensions (as listed in
//!   `lhs_contracting_dimensions`) as the same cascade as every CPU output
//!   element: blocks of `CASCADE_BLOCK` (64) products from `+0`, block sums cascaded.
//! * `reduce` of one `f32` or `f64` input whose body is a single `add`: one
//!   thread per result element sums the reduced elements, in row-major order
//!   of the reduced dimensions, as the CPU's pairwise tree and adds the sum
//!   to the init value ([`crate::ops::reduction`]'s order).
//!
//! Each offloaded op copies its operands to the device, runs one kernel and
//! copies the result back (correctness first: nothing stays on the device
//! between ops). Ops are serialized on one stream behind a mutex. Every
//! launch goes through `launch.rs`, which checks the arguments against the
//! kernel's declared parameters and bounds and holds the one `unsafe`
//! launch.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, ValidAsZeroBits,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};
use melior::ir::OperationRef;

mod launch;

use launch::{input, scalar, Arg};

use crate::ops::decoded::{Decoded, ReduceAttrs};
use crate::ops::linalg::{dot_operands, DotDimensions};
use crate::ops::reduction::{reduce_layout, ReduceLayout};
use crate::ops::{BinaryOp, Combiner, CompareType, Direction, OpError, Regions, UnaryOp};
use crate::value::{Data, ElementType, Tensor, TensorType};
use crate::RuntimeError;

/// The ops the backend computes (besides `stablehlo.reduce`), decoded by
/// [`Decoded`].
const COVERED: &[&str] = &[
    "stablehlo.add",
    "stablehlo.subtract",
    "stablehlo.multiply",
    "stablehlo.divide",
    "stablehlo.maximum",
    "stablehlo.minimum",
    "stablehlo.negate",
    "stablehlo.abs",
    "stablehlo.compare",
    "stablehlo.select",
    "stablehlo.dot_general",
];

/// Threads per block of every launch.
const BLOCK: u32 = 256;

/// The kernel source (CUDA C++, compiled by NVRTC at run time).
const KERNELS: &str = include_str!("kernels.cu");

/// The NVRTC options: no FMA contraction, no flush to zero, IEEE division
/// and square root.
const NVRTC_OPTIONS: [(&str, bool); 4] = [
    ("fmad", false),
    ("ftz", false),
    ("prec-div", true),
    ("prec-sqrt", true),
];

/// The host's NaN conventions, compiled into the kernels.
fn nan_defines() -> String {
    let aarch64 = cfg!(target_arch = "aarch64");
    let (nan32, nan64) = if aarch64 {
        ("0x7fc00000u", "0x7ff8000000000000ull")
    } else {
        ("0xffc00000u", "0xfff8000000000000ull")
    };
    // The cascade's block comes from the CPU's definition, so both sum alike.
    format!(
        "#define ZKDV_DEFAULT_NAN32 {nan32}\n#define ZKDV_DEFAULT_NAN64 {nan64}\n\
         #define ZKDV_SNAN_FIRST {}\n#define CASCADE_BLOCK {}ull\n",
        u8::from(aarch64),
        crate::ops::reduction::CASCADE_BLOCK
    )
}

fn backend_error(what: &str, error: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Backend(format!("CUDA: {what}: {error}"))
}

/// An open CUDA device with the compiled kernels.
pub struct CudaBackend {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernels: HashMap<&'static str, CudaFunction>,
    /// Held while an op runs: ops are serialized.
    lock: Mutex<()>,
    device: String,
    /// Kernels launched so far.
    launches: AtomicU64,
}

impl std::fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaBackend")
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

static GLOBAL: OnceLock<Result<CudaBackend, String>> = OnceLock::new();

impl CudaBackend {
    /// The process's backend on device 0, opened (libraries loaded, kernels
    /// compiled) on first use; the error of that first attempt is kept.
    pub fn global() -> Result<&'static CudaBackend, RuntimeError> {
        GLOBAL
            .get_or_init(Self::open)
            .as_ref()
            .map_err(|message| RuntimeError::Backend(message.clone()))
    }

    /// Whether the backend can run here (`Err` says why not).
    pub fn available() -> Result<(), RuntimeError> {
        Self::global().map(|_| ())
    }

    /// How many kernels this process has launched (one per offloaded op).
    pub fn launches(&self) -> u64 {
        self.launches.load(Ordering::Relaxed)
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.device
    }

    fn open() -> Result<CudaBackend, String> {
        // SAFETY: these only try to dlopen the libraries by their usual
        // names; nothing is called through them.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err("no CUDA driver: libcuda could not be loaded".to_owned());
        }
        // SAFETY: as above.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(
                "no NVRTC: libnvrtc could not be loaded (the CUDA toolkit's runtime compiler)"
                    .to_owned(),
            );
        }
        // cudarc panics when a library lacks a symbol it needs (a driver
        // older than the API version it was built for): report that too.
        std::panic::catch_unwind(Self::open_loaded).unwrap_or_else(|panic| {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            Err(format!("CUDA libraries unusable: {why}"))
        })
    }

    fn open_loaded() -> Result<CudaBackend, String> {
        let count = CudaContext::device_count().map_err(|e| format!("no CUDA device: {e}"))?;
        if count < 1 {
            return Err("no CUDA device".to_owned());
        }
        let context = CudaContext::new(0).map_err(|e| format!("cannot open CUDA device 0: {e}"))?;
        let device = context.name().unwrap_or_else(|_| "device 0".to_owned());
        let stream = context.default_stream();
        let mut options = CompileOptions {
            name: Some("zkdv_kernels.cu".to_owned()),
            ..Default::default()
        };
        for (option, value) in NVRTC_OPTIONS {
            match option {
                "fmad" => options.fmad = Some(value),
                "ftz" => options.ftz = Some(value),
                "prec-div" => options.prec_div = Some(value),
                _ => options.prec_sqrt = Some(value),
            }
        }
        let source = format!("{}{KERNELS}", nan_defines());
        let ptx = compile_ptx_with_opts(source, options)
            .map_err(|e| format!("NVRTC cannot compile the kernels: {e:?}"))?;
        let module = context
            .load_module(ptx)
            .map_err(|e| format!("cannot load the kernels on {device}: {e}"))?;
        let mut kernels = HashMap::new();
        for name in launch::KERNELS.iter().map(|kernel| kernel.name) {
            let function = module
                .load_function(name)
                .map_err(|e| format!("kernel {name}: {e}"))?;
            kernels.insert(name, function);
        }
        Ok(CudaBackend {
            context,
            stream,
            kernels,
            lock: Mutex::new(()),
            device,
            launches: AtomicU64::new(0),
        })
    }

    fn kernel(&self, name: &str) -> Result<&CudaFunction, RuntimeError> {
        self.kernels
            .get(name)
            .ok_or_else(|| RuntimeError::Backend(format!("CUDA: no kernel {name}")))
    }

    fn guard(&self) -> Result<std::sync::MutexGuard<'_, ()>, RuntimeError> {
        self.launches.fetch_add(1, Ordering::Relaxed);
        let guard = self
            .lock
            .lock()
            .map_err(|_| RuntimeError::Backend("CUDA: a previous op panicked".to_owned()))?;
        self.context
            .bind_to_thread()
            .map_err(|e| backend_error("bind context", e))?;
        Ok(guard)
    }

    /// A host slice on the device (a one-element buffer for an empty one:
    /// kernels never read it then).
    fn upload<T: DeviceRepr + Default + Copy>(
        &self,
        values: &[T],
    ) -> Result<CudaSlice<T>, RuntimeError> {
        let padded;
        let values = if values.is_empty() {
            padded = [T::default()];
            &padded[..]
        } else {
            values
        };
        self.stream
            .clone_htod(values)
            .map_err(|e| backend_error("host-to-device copy", e))
    }

    fn output<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>, RuntimeError> {
        self.stream
            .alloc_zeros::<T>(len.max(1))
            .map_err(|e| backend_error("allocation", e))
    }

    fn download<T: DeviceRepr + Default + Clone>(
        &self,
        slice: &CudaSlice<T>,
        len: usize,
    ) -> Result<Vec<T>, RuntimeError> {
        let mut values = self
            .stream
            .clone_dtoh(slice)
            .map_err(|e| backend_error("device-to-host copy", e))?;
        values.truncate(len);
        Ok(values)
    }

    /// `f32`/`f64` `op(lhs, rhs)`; `None` when not covered (other types,
    /// shapes that differ, no elements).
    pub fn binary(
        &self,
        op: BinaryOp,
        lhs: &Tensor,
        rhs: &Tensor,
    ) -> Result<Option<Tensor>, RuntimeError> {
        if lhs.element != rhs.element || lhs.shape != rhs.shape {
            return Ok(None);
        }
        let code: i32 = match op {
            BinaryOp::Add => 0,
            BinaryOp::Subtract => 1,
            BinaryOp::Multiply => 2,
            BinaryOp::Divide => 3,
            BinaryOp::Maximum => 4,
            BinaryOp::Minimum => 5,
        };
        let n = lhs.data.len();
        let Some(config) = launch_config(n) else {
            return Ok(None);
        };
        let data = match (lhs.element, &lhs.data, &rhs.data) {
            (ElementType::F32, Data::F32(a), Data::F32(b)) => {
                Data::F32(self.launch("binary_f32", config, n, &elementwise(a, b, n, code))?)
            }
            (ElementType::F64, Data::F64(a), Data::F64(b)) => {
                Data::F64(self.launch("binary_f64", config, n, &elementwise(a, b, n, code))?)
            }
            _ => return Ok(None),
        };
        tensor(lhs.element, lhs.shape.clone(), data)
    }

    /// `negate` or `abs` of a float tensor (sign-bit operations, as on the
    /// CPU); `None` when not covered.
    pub fn unary(&self, op: UnaryOp, operand: &Tensor) -> Result<Option<Tensor>, RuntimeError> {
        let n = operand.data.len();
        let Some(config) = launch_config(n) else {
            return Ok(None);
        };
        let stem = match op {
            UnaryOp::Negate => "negate",
            UnaryOp::Abs => "abs",
        };
        let data = match &operand.data {
            Data::F32(a) if operand.element.is_float() => {
                let words: Vec<u32> = a.iter().map(|x| x.to_bits()).collect();
                let name = format!("{stem}_w32");
                let args = [
                    input(&words[..]),
                    Arg::Out,
                    scalar(n as u64),
                    scalar(0x8000_0000u32),
                ];
                let out: Vec<u32> = self.launch(&name, config, n, &args)?;
                Data::F32(out.into_iter().map(f32::from_bits).collect())
            }
            Data::F64(a) => {
                let words: Vec<u64> = a.iter().map(|x| x.to_bits()).collect();
                let name = format!("{stem}_w64");
                let sign = 0x8000_0000_0000_0000u64;
                let args = [input(&words[..]), Arg::Out, scalar(n as u64), scalar(sign)];
                let out: Vec<u64> = self.launch(&name, config, n, &args)?;
                Data::F64(out.into_iter().map(f64::from_bits).collect())
            }
            _ => return Ok(None),
        };
        tensor(operand.element, operand.shape.clone(), data)
    }

    /// `compare` of float tensors into `i1`; `None` when not covered.
    pub fn compare(
        &self,
        direction: Direction,
        compare_type: Option<CompareType>,
        lhs: &Tensor,
        rhs: &Tensor,
    ) -> Result<Option<Tensor>, RuntimeError> {
        if lhs.element != rhs.element || lhs.shape != rhs.shape {
            return Ok(None);
        }
        let n = lhs.data.len();
        let Some(config) = launch_config(n) else {
            return Ok(None);
        };
        let code: i32 = match direction {
            Direction::Eq => 0,
            Direction::Ne => 1,
            Direction::Ge => 2,
            Direction::Gt => 3,
            Direction::Le => 4,
            Direction::Lt => 5,
        };
        let total = i32::from(compare_type == Some(CompareType::TotalOrder));
        let out = match (&lhs.data, &rhs.data) {
            (Data::F32(a), Data::F32(b)) => {
                let args = [
                    input(&a[..]),
                    input(&b[..]),
                    Arg::Out,
                    scalar(n as u64),
                    scalar(code),
                    scalar(total),
                ];
                self.launch::<u8>("compare_f32", config, n, &args)?
            }
            (Data::F64(a), Data::F64(b)) => {
                let args = [
                    input(&a[..]),
                    input(&b[..]),
                    Arg::Out,
                    scalar(n as u64),
                    scalar(code),
                    scalar(total),
                ];
                self.launch::<u8>("compare_f64", config, n, &args)?
            }
            _ => return Ok(None),
        };
        tensor(
            ElementType::I1,
            lhs.shape.clone(),
            Data::Bool(out.into_iter().map(|b| b != 0).collect()),
        )
    }

    /// `pred ? on_true : on_false` (a scalar `pred` or one of the operands'
    /// shape) on float and integer tensors; `None` when not covered.
    pub fn select(
        &self,
        pred: &Tensor,
        on_true: &Tensor,
        on_false: &Tensor,
    ) -> Result<Option<Tensor>, RuntimeError> {
        let Data::Bool(p) = &pred.data else {
            return Ok(None);
        };
        if on_true.element != on_false.element
            || on_true.shape != on_false.shape
            || !(pred.shape.is_empty() || pred.shape == on_true.shape)
        {
            return Ok(None);
        }
        let n = on_true.data.len();
        let Some(config) = launch_config(n) else {
            return Ok(None);
        };
        let p: Vec<u8> = p.iter().map(|&b| u8::from(b)).collect();
        if p.is_empty() {
            return Ok(None);
        }
        let data = match (&on_true.data, &on_false.data) {
            (Data::F32(t), Data::F32(f)) => {
                let t: Vec<u32> = t.iter().map(|x| x.to_bits()).collect();
                let f: Vec<u32> = f.iter().map(|x| x.to_bits()).collect();
                let out: Vec<u32> = self.launch("select_w32", config, n, &select(&p, &t, &f))?;
                Data::F32(out.into_iter().map(f32::from_bits).collect())
            }
            (Data::F64(t), Data::F64(f)) => {
                let t: Vec<u64> = t.iter().map(|x| x.to_bits()).collect();
                let f: Vec<u64> = f.iter().map(|x| x.to_bits()).collect();
                let out: Vec<u64> = self.launch("select_w64", config, n, &select(&p, &t, &f))?;
                Data::F64(out.into_iter().map(f64::from_bits).collect())
            }
            (Data::Signed(t), Data::Signed(f)) => {
                let t: Vec<u64> = t.iter().map(|&x| x as u64).collect();
                let f: Vec<u64> = f.iter().map(|&x| x as u64).collect();
                let out: Vec<u64> = self.launch("select_w64", config, n, &select(&p, &t, &f))?;
                Data::Signed(out.into_iter().map(|x| x as i64).collect())
            }
            (Data::Unsigned(t), Data::Unsigned(f)) => {
                Data::Unsigned(self.launch("select_w64", config, n, &select(&p, t, f))?)
            }
            _ => return Ok(None),
        };
        tensor(on_true.element, on_true.shape.clone(), data)
    }

    /// `dot_general` with an `f32` or `f64` result (see the module docs for
    /// the order of each sum); `None` when not covered or when the CPU
    /// would reject the operands (it then reports the error).
    pub fn dot_general(
        &self,
        lhs: &Tensor,
        rhs: &Tensor,
        dims: &DotDimensions,
        result: &TensorType,
    ) -> Result<Option<Tensor>, RuntimeError> {
        if !matches!(result.element, ElementType::F32 | ElementType::F64) {
            return Ok(None);
        }
        let Ok((a, b, shape)) = dot_operands(lhs, rhs, dims, result) else {
            return Ok(None);
        };
        let n = shape.batch * shape.rows * shape.cols;
        let Some(config) = launch_config(n) else {
            return Ok(None);
        };
        let sizes = [shape.batch, shape.rows, shape.depth, shape.cols].map(|s| s as u64);
        let data = match (&a.data, &b.data) {
            (Data::F32(a), Data::F32(b)) => {
                Data::F32(self.launch("dot_f32", config, n, &dot(a, b, sizes))?)
            }
            (Data::F64(a), Data::F64(b)) => {
                Data::F64(self.launch("dot_f64", config, n, &dot(a, b, sizes))?)
            }
            _ => return Ok(None),
        };
        tensor(result.element, result.shape.clone(), data)
    }

    /// `reduce` with an `add` body of one `f32`/`f64` input over
    /// `dimensions`, `init` of the same type; `None` when not covered.
    pub fn reduce_add(
        &self,
        input: &Tensor,
        init: &Tensor,
        dimensions: &[usize],
    ) -> Result<Option<Tensor>, RuntimeError> {
        if input.element != init.element || !init.shape.is_empty() {
            return Ok(None);
        }
        let Ok(ReduceLayout {
            result_shape,
            bases,
            offsets,
        }) = reduce_layout(&input.shape, dimensions)
        else {
            return Ok(None);
        };
        let outputs = bases.len();
        let Some(config) = launch_config(outputs) else {
            return Ok(None);
        };
        let bases: Vec<u64> = bases.into_iter().map(|b| b as u64).collect();
        let offsets: Vec<u64> = offsets.into_iter().map(|o| o as u64).collect();
        let data = match (input.element, &input.data, &init.data) {
            (ElementType::F32, Data::F32(x), Data::F32(i)) => match i.first() {
                Some(&i) => Data::F32(self.launch(
                    "reduce_add_f32",
                    config,
                    outputs,
                    &reduce(x, &bases, &offsets, i),
                )?),
                None => return Ok(None),
            },
            (ElementType::F64, Data::F64(x), Data::F64(i)) => match i.first() {
                Some(&i) => Data::F64(self.launch(
                    "reduce_add_f64",
                    config,
                    outputs,
                    &reduce(x, &bases, &offsets, i),
                )?),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        tensor(input.element, result_shape, data)
    }

    /// The op family of the backend (see [`family`]).
    fn offload(
        &self,
        op: &OperationRef<'_, '_>,
        name: &str,
        operands: &[&Tensor],
        regions: &dyn Regions,
    ) -> Result<Option<Vec<Tensor>>, RuntimeError> {
        if name == "stablehlo.reduce" {
            let [input, init] = operands else {
                return Ok(None);
            };
            let Ok(ReduceAttrs {
                results,
                dimensions,
            }) = ReduceAttrs::decode(op)
            else {
                return Ok(None);
            };
            let adds = regions
                .body(0)
                .is_ok_and(|body| body.combiner() == Some(Combiner::Add));
            if !adds || results.len() != 1 || results[0].element != input.element {
                return Ok(None);
            }
            return Ok(self.reduce_add(input, init, &dimensions)?.map(|t| vec![t]));
        }
        if !COVERED.contains(&name) {
            return Ok(None);
        }
        // An op whose attributes do not decode is left to the CPU family,
        // which reports them.
        let Some(Ok(decoded)) = Decoded::decode(op, name) else {
            return Ok(None);
        };
        let result = match (&decoded, operands) {
            (Decoded::Binary(kind), [a, b]) => self.binary(*kind, a, b)?,
            (Decoded::Unary(kind), [a]) => self.unary(*kind, a)?,
            (Decoded::Compare(c), [a, b]) => self.compare(c.direction, c.compare_type, a, b)?,
            (Decoded::Select, [p, t, f]) => self.select(p, t, f)?,
            // A member that rounds a product's operands runs it on the CPU.
            (
                Decoded::DotGeneral {
                    dimensions,
                    result,
                    reduced,
                },
                [a, b],
            ) if !(*reduced && crate::rounding::rounds_products()) => {
                self.dot_general(a, b, dimensions, result)?
            }
            _ => None,
        };
        Ok(result.map(|t| vec![t]))
    }
}

/// The arguments of `binary_*`: `(a, b, out, n, op)`.
fn elementwise<'h, T>(a: &'h [T], b: &'h [T], n: usize, code: i32) -> [Arg<'h>; 5]
where
    &'h [T]: Into<launch::Host<'h>>,
{
    [input(a), input(b), Arg::Out, scalar(n as u64), scalar(code)]
}

/// The arguments of `select_*`: `(pred, pred_len, t, f, out, n)`.
fn select<'h, W>(pred: &'h [u8], t: &'h [W], f: &'h [W]) -> [Arg<'h>; 6]
where
    &'h [W]: Into<launch::Host<'h>>,
{
    let (pred_len, n) = (pred.len() as u64, t.len() as u64);
    [
        input(pred),
        scalar(pred_len),
        input(t),
        input(f),
        Arg::Out,
        scalar(n),
    ]
}

/// The arguments of `dot_*`: `(a, b, out, batch, rows, depth, cols)`.
fn dot<'h, T>(a: &'h [T], b: &'h [T], [batch, rows, depth, cols]: [u64; 4]) -> [Arg<'h>; 7]
where
    &'h [T]: Into<launch::Host<'h>>,
{
    let [batch, rows, depth, cols] = [batch, rows, depth, cols].map(scalar);
    [input(a), input(b), Arg::Out, batch, rows, depth, cols]
}

/// The arguments of `reduce_add_*`: `(input, bases, offsets, out, outputs,
/// count, init)`.
fn reduce<'h, T>(x: &'h [T], bases: &'h [u64], offsets: &'h [u64], init: T) -> [Arg<'h>; 7]
where
    &'h [T]: Into<launch::Host<'h>>,
    T: Into<launch::Value>,
{
    let (outputs, count) = (bases.len() as u64, offsets.len() as u64);
    [
        input(x),
        input(bases),
        input(offsets),
        Arg::Out,
        scalar(outputs),
        scalar(count),
        scalar(init),
    ]
}

/// A launch of one thread per element of `n`, `None` when there is nothing
/// to do or too much for one grid.
fn launch_config(n: usize) -> Option<LaunchConfig> {
    if n == 0 {
        return None;
    }
    let blocks = u32::try_from(n.div_ceil(BLOCK as usize)).ok()?;
    (blocks < i32::MAX as u32).then_some(LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    })
}

fn tensor(
    element: ElementType,
    shape: Vec<usize>,
    data: Data,
) -> Result<Option<Tensor>, RuntimeError> {
    Tensor::new(element, shape, data)
        .map(Some)
        .map_err(|e| RuntimeError::Backend(format!("CUDA: result: {e}")))
}

/// The CUDA backend as an op family of the interpreter
/// ([`crate::ops::Family`]): computes the ops of the module docs on the
/// GPU and answers `Ok(None)` for every other op (or type, or shape), which
/// the CPU families then run. Selected with [`crate::Backend::Cuda`].
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    let backend = CudaBackend::global()?;
    Ok(backend.offload(op, name, operands, regions)?)
}
