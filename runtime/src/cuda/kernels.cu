// The CUDA kernels of the runtime's CUDA backend (`mod.rs`), compiled at run
// time by NVRTC with `--fmad=false --ftz=false --prec-div=true
// --prec-sqrt=true`, after the defines of `nan_defines()` (ZKDV_DEFAULT_NAN32,
// ZKDV_DEFAULT_NAN64, ZKDV_SNAN_FIRST, CASCADE_BLOCK).
//
// Invariants: every float operation is an explicit round-to-nearest intrinsic
// (`__fadd_rn`, `__fmul_rn`, `__ddiv_rn`, ...), never contracted into an FMA,
// so each is the single IEEE operation the CPU interpreter performs; sums are
// the CPU's cascade (`Cascade` below). Every kernel runs one thread per output
// element and guards its index against its count, so a grid larger than the
// output is harmless. The parameter lists are mirrored, with the bounds each
// kernel reads, by the kernel table of `launch.rs`: change both together.

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
