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
//! The kernels (the `KERNELS` source below) are compiled once with NVRTC
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
//! between ops). Ops are serialized on one stream behind a mutex.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg,
    ValidAsZeroBits,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};
use melior::ir::OperationRef;

use crate::attrs;
use crate::ops::linalg::{dot_operands, DotDimensions};
use crate::ops::reduction::{reduce_layout, ReduceLayout};
use crate::ops::{BinaryOp, Combiner, CompareType, Direction, OpError, Regions, UnaryOp};
use crate::value::{Data, ElementType, Tensor, TensorType};
use crate::RuntimeError;

/// Threads per block of every launch.
const BLOCK: u32 = 256;

/// The kernel source (CUDA C++, compiled by NVRTC at run time).
const KERNELS: &str = r#"
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

enum { OP_ADD = 0, OP_SUB = 1, OP_MUL = 2, OP_DIV = 3, OP_MAX = 4, OP_MIN = 5 };

template <typename T> struct F;

template <> struct F<float> {
  typedef u32 U;
  typedef int S;
  static constexpr U SIGN = 0x80000000u;
  static constexpr U EXP = 0x7f800000u;
  static constexpr U QUIET = 0x00400000u;
  static constexpr U DEFAULT_NAN = ZKDV_DEFAULT_NAN32;
  static __device__ __forceinline__ U bits(float x) { return __float_as_uint(x); }
  static __device__ __forceinline__ float from(U u) { return __uint_as_float(u); }
  static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
  static __device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
  static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
  static __device__ __forceinline__ float div(float a, float b) { return __fdiv_rn(a, b); }
};

template <> struct F<double> {
  typedef u64 U;
  typedef i64 S;
  static constexpr U SIGN = 0x8000000000000000ull;
  static constexpr U EXP = 0x7ff0000000000000ull;
  static constexpr U QUIET = 0x0008000000000000ull;
  static constexpr U DEFAULT_NAN = ZKDV_DEFAULT_NAN64;
  static __device__ __forceinline__ U bits(double x) { return (U)__double_as_longlong(x); }
  static __device__ __forceinline__ double from(U u) { return __longlong_as_double((i64)u); }
  static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
  static __device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
  static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
  static __device__ __forceinline__ double div(double a, double b) { return __ddiv_rn(a, b); }
};

template <typename T> __device__ __forceinline__ bool is_nan(typename F<T>::U u) {
  return (u & ~F<T>::SIGN) > F<T>::EXP;
}

/* One IEEE operation with the host CPU's NaN rules (see the Rust docs). */
template <typename T> __device__ __forceinline__ T arith(int op, T a, T b) {
  typedef typename F<T>::U U;
  U ua = F<T>::bits(a), ub = F<T>::bits(b);
  bool na = is_nan<T>(ua), nb = is_nan<T>(ub);
  if (na || nb) {
#if ZKDV_SNAN_FIRST
    if (na && nb && (ua & F<T>::QUIET) && !(ub & F<T>::QUIET)) return F<T>::from(ub | F<T>::QUIET);
#endif
    return F<T>::from((na ? ua : ub) | F<T>::QUIET);
  }
  T r;
  switch (op) {
    case OP_ADD: r = F<T>::add(a, b); break;
    case OP_SUB: r = F<T>::sub(a, b); break;
    case OP_MUL: r = F<T>::mul(a, b); break;
    default: r = F<T>::div(a, b); break;
  }
  return is_nan<T>(F<T>::bits(r)) ? F<T>::from(F<T>::DEFAULT_NAN) : r;
}

/* maximum/minimum exactly as ops/elementwise.rs: returns an operand's bits. */
template <typename T> __device__ __forceinline__ T extreme(T x, T y, bool max) {
  typedef typename F<T>::U U;
  U ux = F<T>::bits(x), uy = F<T>::bits(y);
  if (x == y && x == (T)0) {
    bool negative = (ux & F<T>::SIGN) != 0;
    return negative == max ? F<T>::from(uy) : F<T>::from(ux);
  }
  if (is_nan<T>(ux)) return F<T>::from(ux);
  if (is_nan<T>(uy)) return F<T>::from(uy);
  return ((x > y) == max) ? F<T>::from(ux) : F<T>::from(uy);
}

template <typename T> __device__ __forceinline__ T binary(int op, T a, T b) {
  if (op == OP_MAX) return extreme<T>(a, b, true);
  if (op == OP_MIN) return extreme<T>(a, b, false);
  return arith<T>(op, a, b);
}

/* -1 less, 0 equal, 1 greater, 2 unordered. */
template <typename T> __device__ __forceinline__ int order(T x, T y, int total) {
  typedef typename F<T>::U U;
  typedef typename F<T>::S S;
  U ux = F<T>::bits(x), uy = F<T>::bits(y);
  if (total) {
    S kx = (S)(ux ^ ((ux & F<T>::SIGN) ? ~F<T>::SIGN : (U)0));
    S ky = (S)(uy ^ ((uy & F<T>::SIGN) ? ~F<T>::SIGN : (U)0));
    return kx < ky ? -1 : (kx > ky ? 1 : 0);
  }
  if (is_nan<T>(ux) || is_nan<T>(uy)) return 2;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* Directions: 0 EQ, 1 NE, 2 GE, 3 GT, 4 LE, 5 LT. */
__device__ __forceinline__ bool holds(int direction, int o) {
  switch (direction) {
    case 0: return o == 0;
    case 1: return o != 0;
    case 2: return o == 0 || o == 1;
    case 3: return o == 1;
    case 4: return o == -1 || o == 0;
    default: return o == -1;
  }
}

__device__ __forceinline__ u64 thread_index() {
  return (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x;
}

/* The CPU's cascade (crate::ops::reduction::Cascade): block results pushed as level-0 carries,
   merged with the stack's top while the levels match, then the stack combined newest last. */
template <typename T> struct Cascade {
  T value[64];
  unsigned level[64];
  int top;
  __device__ Cascade() : top(0) {}
  __device__ void push(T block) {
    unsigned l = 0;
    while (top > 0 && level[top - 1] == l) {
      block = arith<T>(OP_ADD, value[top - 1], block);
      --top;
      ++l;
    }
    value[top] = block;
    level[top] = l;
    ++top;
  }
  __device__ T finish(T empty) {
    if (top == 0) return empty;
    T acc = value[--top];
    while (top > 0) acc = arith<T>(OP_ADD, value[--top], acc);
    return acc;
  }
};

#define ZKDV_KERNELS(T, SUFFIX)                                                              \
extern "C" __global__ void binary_##SUFFIX(const T* a, const T* b, T* out, u64 n, int op) { \
  u64 i = thread_index();                                                                    \
  if (i < n) out[i] = binary<T>(op, a[i], b[i]);                                             \
}                                                                                            \
extern "C" __global__ void compare_##SUFFIX(const T* a, const T* b, unsigned char* out,     \
                                            u64 n, int direction, int total) {               \
  u64 i = thread_index();                                                                    \
  if (i < n) out[i] = holds(direction, order<T>(a[i], b[i], total)) ? 1 : 0;                 \
}                                                                                            \
extern "C" __global__ void dot_##SUFFIX(const T* a, const T* b, T* out, u64 batch,          \
                                        u64 rows, u64 depth, u64 cols) {                     \
  u64 i = thread_index();                                                                    \
  if (i >= batch * rows * cols) return;                                                      \
  u64 c = i % cols;                                                                          \
  u64 row = i / cols;                                                                        \
  u64 item = row / rows;                                                                     \
  const T* x = a + row * depth;                                                              \
  const T* y = b + item * depth * cols + c;                                                  \
  Cascade<T> sums;                                                                           \
  for (u64 k0 = 0; k0 < depth; k0 += CASCADE_BLOCK) {                                        \
    T acc = (T)0;                                                                            \
    u64 end = k0 + CASCADE_BLOCK < depth ? k0 + CASCADE_BLOCK : depth;                       \
    for (u64 k = k0; k < end; ++k) {                                                         \
      acc = arith<T>(OP_ADD, acc, arith<T>(OP_MUL, x[k], y[k * cols]));                      \
    }                                                                                        \
    sums.push(acc);                                                                          \
  }                                                                                          \
  out[i] = sums.finish((T)0);                                                                \
}                                                                                            \
extern "C" __global__ void reduce_add_##SUFFIX(const T* input, const u64* bases,            \
                                               const u64* offsets, T* out, u64 outputs,      \
                                               u64 count, T init) {                          \
  u64 i = thread_index();                                                                    \
  if (i >= outputs) return;                                                                  \
  const T* base = input + bases[i];                                                          \
  Cascade<T> sums;                                                                           \
  for (u64 j0 = 0; j0 < count; j0 += CASCADE_BLOCK) {                                        \
    T acc = base[offsets[j0]];                                                               \
    u64 end = j0 + CASCADE_BLOCK < count ? j0 + CASCADE_BLOCK : count;                       \
    for (u64 j = j0 + 1; j < end; ++j) acc = arith<T>(OP_ADD, acc, base[offsets[j]]);       \
    sums.push(acc);                                                                          \
  }                                                                                          \
  out[i] = count ? arith<T>(OP_ADD, init, sums.finish(init)) : init;                         \
}

ZKDV_KERNELS(float, f32)
ZKDV_KERNELS(double, f64)

#define ZKDV_WORD_KERNELS(W, SUFFIX)                                                         \
extern "C" __global__ void select_##SUFFIX(const unsigned char* pred, u64 pred_len,         \
                                           const W* t, const W* f, W* out, u64 n) {          \
  u64 i = thread_index();                                                                    \
  if (i < n) out[i] = pred[pred_len == 1 ? 0 : i] ? t[i] : f[i];                             \
}                                                                                            \
extern "C" __global__ void negate_##SUFFIX(const W* a, W* out, u64 n, W sign) {             \
  u64 i = thread_index();                                                                    \
  if (i < n) out[i] = a[i] ^ sign;                                                           \
}                                                                                            \
extern "C" __global__ void abs_##SUFFIX(const W* a, W* out, u64 n, W sign) {                \
  u64 i = thread_index();                                                                    \
  if (i < n) out[i] = a[i] & ~sign;                                                          \
}

ZKDV_WORD_KERNELS(u32, w32)
ZKDV_WORD_KERNELS(u64, w64)
"#;

/// The kernels' names.
const KERNEL_NAMES: &[&str] = &[
    "binary_f32",
    "binary_f64",
    "compare_f32",
    "compare_f64",
    "dot_f32",
    "dot_f64",
    "reduce_add_f32",
    "reduce_add_f64",
    "select_w32",
    "select_w64",
    "negate_w32",
    "negate_w64",
    "abs_w32",
    "abs_w64",
];

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
        for &name in KERNEL_NAMES {
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
                Data::F32(self.run_binary("binary_f32", a, b, n, code, config)?)
            }
            (ElementType::F64, Data::F64(a), Data::F64(b)) => {
                Data::F64(self.run_binary("binary_f64", a, b, n, code, config)?)
            }
            _ => return Ok(None),
        };
        tensor(lhs.element, lhs.shape.clone(), data)
    }

    fn run_binary<T: DeviceRepr + ValidAsZeroBits + Default + Copy>(
        &self,
        kernel: &str,
        a: &[T],
        b: &[T],
        n: usize,
        code: i32,
        config: LaunchConfig,
    ) -> Result<Vec<T>, RuntimeError> {
        let _guard = self.guard()?;
        let function = self.kernel(kernel)?;
        let a = self.upload(a)?;
        let b = self.upload(b)?;
        let mut out = self.output::<T>(n)?;
        let count = n as u64;
        let mut launch = self.stream.launch_builder(function);
        launch.arg(&a).arg(&b).arg(&mut out).arg(&count).arg(&code);
        // SAFETY: the kernel's parameters are (const T*, const T*, T*, u64,
        // int), matching the arguments; every buffer holds `n` elements.
        unsafe { launch.launch(config) }.map_err(|e| backend_error(kernel, e))?;
        self.download(&out, n)
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
                let out = self.run_sign(&name, &words, 0x8000_0000u32, config)?;
                Data::F32(out.into_iter().map(f32::from_bits).collect())
            }
            Data::F64(a) => {
                let words: Vec<u64> = a.iter().map(|x| x.to_bits()).collect();
                let name = format!("{stem}_w64");
                let out = self.run_sign(&name, &words, 0x8000_0000_0000_0000u64, config)?;
                Data::F64(out.into_iter().map(f64::from_bits).collect())
            }
            _ => return Ok(None),
        };
        tensor(operand.element, operand.shape.clone(), data)
    }

    fn run_sign<W: DeviceRepr + ValidAsZeroBits + Default + Copy>(
        &self,
        kernel: &str,
        words: &[W],
        sign: W,
        config: LaunchConfig,
    ) -> Result<Vec<W>, RuntimeError> {
        let _guard = self.guard()?;
        let function = self.kernel(kernel)?;
        let n = words.len();
        let a = self.upload(words)?;
        let mut out = self.output::<W>(n)?;
        let count = n as u64;
        let mut launch = self.stream.launch_builder(function);
        launch.arg(&a).arg(&mut out).arg(&count).arg(&sign);
        // SAFETY: parameters (const W*, W*, u64, W) match; `n` elements.
        unsafe { launch.launch(config) }.map_err(|e| backend_error(kernel, e))?;
        self.download(&out, n)
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
                self.run_compare("compare_f32", a, b, code, total, config)?
            }
            (Data::F64(a), Data::F64(b)) => {
                self.run_compare("compare_f64", a, b, code, total, config)?
            }
            _ => return Ok(None),
        };
        tensor(
            ElementType::I1,
            lhs.shape.clone(),
            Data::Bool(out.into_iter().map(|b| b != 0).collect()),
        )
    }

    fn run_compare<T: DeviceRepr + Default + Copy>(
        &self,
        kernel: &str,
        a: &[T],
        b: &[T],
        code: i32,
        total: i32,
        config: LaunchConfig,
    ) -> Result<Vec<u8>, RuntimeError> {
        let _guard = self.guard()?;
        let function = self.kernel(kernel)?;
        let n = a.len();
        let (a, b) = (self.upload(a)?, self.upload(b)?);
        let mut out = self.output::<u8>(n)?;
        let count = n as u64;
        let mut launch = self.stream.launch_builder(function);
        launch.arg(&a).arg(&b).arg(&mut out).arg(&count);
        launch.arg(&code).arg(&total);
        // SAFETY: (const T*, const T*, u8*, u64, int, int); `n` elements.
        unsafe { launch.launch(config) }.map_err(|e| backend_error(kernel, e))?;
        self.download(&out, n)
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
                let out = self.run_select("select_w32", &p, &t, &f, config)?;
                Data::F32(out.into_iter().map(f32::from_bits).collect())
            }
            (Data::F64(t), Data::F64(f)) => {
                let t: Vec<u64> = t.iter().map(|x| x.to_bits()).collect();
                let f: Vec<u64> = f.iter().map(|x| x.to_bits()).collect();
                let out = self.run_select("select_w64", &p, &t, &f, config)?;
                Data::F64(out.into_iter().map(f64::from_bits).collect())
            }
            (Data::Signed(t), Data::Signed(f)) => {
                let t: Vec<u64> = t.iter().map(|&x| x as u64).collect();
                let f: Vec<u64> = f.iter().map(|&x| x as u64).collect();
                let out = self.run_select("select_w64", &p, &t, &f, config)?;
                Data::Signed(out.into_iter().map(|x| x as i64).collect())
            }
            (Data::Unsigned(t), Data::Unsigned(f)) => {
                Data::Unsigned(self.run_select("select_w64", &p, t, f, config)?)
            }
            _ => return Ok(None),
        };
        tensor(on_true.element, on_true.shape.clone(), data)
    }

    fn run_select<W: DeviceRepr + ValidAsZeroBits + Default + Copy>(
        &self,
        kernel: &str,
        pred: &[u8],
        t: &[W],
        f: &[W],
        config: LaunchConfig,
    ) -> Result<Vec<W>, RuntimeError> {
        let _guard = self.guard()?;
        let function = self.kernel(kernel)?;
        let n = t.len();
        let pred_len = pred.len() as u64;
        let (p, t, f) = (self.upload(pred)?, self.upload(t)?, self.upload(f)?);
        let mut out = self.output::<W>(n)?;
        let count = n as u64;
        let mut launch = self.stream.launch_builder(function);
        launch.arg(&p).arg(&pred_len).arg(&t).arg(&f);
        launch.arg(&mut out).arg(&count);
        // SAFETY: (const u8*, u64, const W*, const W*, W*, u64); `pred`
        // holds 1 or `n` elements, the others `n`.
        unsafe { launch.launch(config) }.map_err(|e| backend_error(kernel, e))?;
        self.download(&out, n)
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
                Data::F32(self.run_dot("dot_f32", a, b, sizes, config)?)
            }
            (Data::F64(a), Data::F64(b)) => {
                Data::F64(self.run_dot("dot_f64", a, b, sizes, config)?)
            }
            _ => return Ok(None),
        };
        tensor(result.element, result.shape.clone(), data)
    }

    fn run_dot<T: DeviceRepr + ValidAsZeroBits + Default + Copy>(
        &self,
        kernel: &str,
        a: &[T],
        b: &[T],
        [batch, rows, depth, cols]: [u64; 4],
        config: LaunchConfig,
    ) -> Result<Vec<T>, RuntimeError> {
        let _guard = self.guard()?;
        let function = self.kernel(kernel)?;
        let n = (batch * rows * cols) as usize;
        let (a, b) = (self.upload(a)?, self.upload(b)?);
        let mut out = self.output::<T>(n)?;
        let mut launch = self.stream.launch_builder(function);
        launch.arg(&a).arg(&b).arg(&mut out);
        launch.arg(&batch).arg(&rows).arg(&depth).arg(&cols);
        // SAFETY: (const T*, const T*, T*, u64 x4); `a` holds
        // batch*rows*depth elements, `b` batch*depth*cols, `out` n.
        unsafe { launch.launch(config) }.map_err(|e| backend_error(kernel, e))?;
        self.download(&out, n)
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
                Some(&i) => {
                    Data::F32(self.run_reduce("reduce_add_f32", x, &bases, &offsets, i, config)?)
                }
                None => return Ok(None),
            },
            (ElementType::F64, Data::F64(x), Data::F64(i)) => match i.first() {
                Some(&i) => {
                    Data::F64(self.run_reduce("reduce_add_f64", x, &bases, &offsets, i, config)?)
                }
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        tensor(input.element, result_shape, data)
    }

    fn run_reduce<T: DeviceRepr + ValidAsZeroBits + Default + Copy>(
        &self,
        kernel: &str,
        input: &[T],
        bases: &[u64],
        offsets: &[u64],
        init: T,
        config: LaunchConfig,
    ) -> Result<Vec<T>, RuntimeError> {
        let _guard = self.guard()?;
        let function = self.kernel(kernel)?;
        let outputs = bases.len() as u64;
        let count = offsets.len() as u64;
        let x = self.upload(input)?;
        let (b, o) = (self.upload(bases)?, self.upload(offsets)?);
        let mut out = self.output::<T>(bases.len())?;
        let mut launch = self.stream.launch_builder(function);
        launch.arg(&x).arg(&b).arg(&o).arg(&mut out);
        launch.arg(&outputs).arg(&count).arg(&init);
        // SAFETY: (const T*, const u64*, const u64*, T*, u64, u64, T);
        // every `bases[i] + offsets[j]` is an index of `input` (from
        // `reduce_layout` of its shape).
        unsafe { launch.launch(config) }.map_err(|e| backend_error(kernel, e))?;
        self.download(&out, bases.len())
    }

    /// The op family of the backend (see [`family`]).
    fn offload(
        &self,
        op: &OperationRef<'_, '_>,
        name: &str,
        operands: &[&Tensor],
        regions: &dyn Regions,
    ) -> Result<Option<Vec<Tensor>>, RuntimeError> {
        let binary = |kind: BinaryOp| match operands {
            [a, b] => self.binary(kind, a, b),
            _ => Ok(None),
        };
        let unary = |kind: UnaryOp| match operands {
            [a] => self.unary(kind, a),
            _ => Ok(None),
        };
        let result = match name {
            "stablehlo.add" => binary(BinaryOp::Add)?,
            "stablehlo.subtract" => binary(BinaryOp::Subtract)?,
            "stablehlo.multiply" => binary(BinaryOp::Multiply)?,
            "stablehlo.divide" => binary(BinaryOp::Divide)?,
            "stablehlo.maximum" => binary(BinaryOp::Maximum)?,
            "stablehlo.minimum" => binary(BinaryOp::Minimum)?,
            "stablehlo.negate" => unary(UnaryOp::Negate)?,
            "stablehlo.abs" => unary(UnaryOp::Abs)?,
            "stablehlo.compare" => {
                let [a, b] = operands else { return Ok(None) };
                let Some(direction) = attrs::enum_keyword(op, "comparison_direction")
                    .ok()
                    .flatten()
                    .and_then(|d| Direction::parse(&d))
                else {
                    return Ok(None);
                };
                let compare_type = match attrs::enum_keyword(op, "compare_type") {
                    Ok(None) => None,
                    Ok(Some(text)) => match CompareType::parse(&text) {
                        Some(t) => Some(t),
                        None => return Ok(None),
                    },
                    Err(_) => return Ok(None),
                };
                self.compare(direction, compare_type, a, b)?
            }
            "stablehlo.select" => {
                let [p, t, f] = operands else { return Ok(None) };
                self.select(p, t, f)?
            }
            "stablehlo.dot_general" => {
                let [a, b] = operands else { return Ok(None) };
                let Ok(dims) = attrs::text(op, "dot_dimension_numbers")
                    .and_then(|text| Ok(DotDimensions::parse(&text)?))
                else {
                    return Ok(None);
                };
                let Ok(result) = attrs::result_type(op, 0) else {
                    return Ok(None);
                };
                self.dot_general(a, b, &dims, &result)?
            }
            "stablehlo.reduce" => {
                let [input, init] = operands else {
                    return Ok(None);
                };
                let (Ok(types), Ok(dims)) =
                    (attrs::result_types(op), attrs::dimensions(op, "dimensions"))
                else {
                    return Ok(None);
                };
                let adds = regions
                    .body(0)
                    .is_ok_and(|body| body.combiner() == Some(Combiner::Add));
                if !adds || types.len() != 1 || types[0].element != input.element {
                    return Ok(None);
                }
                self.reduce_add(input, init, &dims)?
            }
            _ => None,
        };
        Ok(result.map(|t| vec![t]))
    }
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
