// What device code can call: barriers, warp shuffles and votes, atomics, bit tricks, shared
// memory, assert, and the CUDA-only maths functions.
#pragma once

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <stdexcept>
#include <type_traits>

#include "cudasim/builtins.hpp"

namespace cudasim {

/// Shared memory a block may use (CUDA's default limit without cudaFuncSetAttribute).
inline constexpr std::size_t kSharedMemoryPerBlock = 48 * 1024;

namespace detail {

enum class WarpOp : std::uint8_t {
  sync,
  shfl_idx,
  shfl_up,
  shfl_down,
  shfl_xor,
  ballot,
  any,
  all,
  active,
  match_any,
  match_all,
  reduce
};

// The operator of a WarpOp::reduce (passed as its lane argument).
enum class Reduce : unsigned {
  add,
  min_unsigned,
  min_int,
  max_unsigned,
  max_int,
  bit_and,
  bit_or,
  bit_xor
};

/// What a lane reads from a source lane that its mask leaves out (CUDA: an undefined value):
/// every bit set, the 0xff bytes of the layer's uninitialised memory (NaN for a float, -1 for
/// an int, 0xffffffff for an unsigned).
inline constexpr std::uint64_t kOutsideMask = ~std::uint64_t{0};

// Both suspend the calling CUDA thread until its barrier opens (see block.cpp). block_barrier
// returns how many threads of the block passed a non-zero predicate. warp_op waits for the
// lanes its mask names, which must all call the same operation with the same mask; the lanes
// outside it neither take part nor are waited for.
int block_barrier(std::source_location where, int predicate = 0);
std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t bits, unsigned lane_arg, int width,
                      std::source_location where);

// `extern __shared__ T s[];` (rewritten by cu2cpp.py) points here: one buffer per worker OS
// thread, which runs one block at a time. Each block starts with its shared_bytes set to 0xff.
alignas(256) inline thread_local unsigned char t_dynamic_shared[kSharedMemoryPerBlock];
template <class T>
T* dynamic_shared() {
  return reinterpret_cast<T*>(t_dynamic_shared);
}
// A function-scope `__shared__` variable (rewritten by cu2cpp.py) calls this when a thread
// passes its declaration: the first call in each block fills it with 0xff bytes (a NaN for
// floats and doubles), so a read of a value no thread wrote gives loud garbage, as on a GPU.
void poison_shared(void* p, std::size_t size, const char* name = nullptr);

// The barrier of a cooperative-groups tile of several warps, threads [first, first + count) of
// the block, has opened: its last thread has come (cooperative_groups.h). For racecheck.
void tile_barrier_opened(unsigned first, unsigned count);

// cu2cpp.py follows each namespace-scope `__device__` and `__constant__` variable, and each
// file-scope `__shared__` one, with one of these (a static object), so that the tools
// (cudasim/tools) know the memory they are: global, constant or per-block shared memory.
enum class SymbolKind : std::uint8_t { device, constant };
struct SymbolRegistration {
  SymbolRegistration(const volatile void* p, std::size_t size, const char* name, SymbolKind kind,
                     const char* file, int line);
};
// A file-scope `__shared__` is `static thread_local`: `address` gives this worker's copy.
struct SharedRegistration {
  SharedRegistration(void* (*address)(), std::size_t size, const char* name);
};

// A failing assert() in device code: fails the launch, naming kernel, block and thread.
struct DeviceAssert : std::logic_error {
  using std::logic_error::logic_error;
};
[[noreturn]] void assert_failed(const char* condition, const char* file, int line);

template <class... A>
struct Unsupported : std::false_type {};
struct AnyValue {  // what an unsupported call "returns", so that only its static_assert shows
  template <class T>
  operator T() const;
};

template <class T>
concept Shufflable = std::is_arithmetic_v<T> &&(sizeof(T) == 4 || sizeof(T) == 8);

// A shuffle moves raw bits, 32 or 64 of them, like the hardware does.
template <Shufflable T>
T shuffle(WarpOp op, unsigned mask, T var, unsigned lane_arg, int width,
          std::source_location where) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof var);
  bits = warp_op(op, mask, bits, lane_arg, width, where);
  std::memcpy(&var, &bits, sizeof var);
  return var;
}

// CUDA atomics are relaxed; blocks run in parallel on worker threads. The floating-point
// loop is written here and always inlined, not left to libstdc++'s fetch_add (an out-of-line
// function), so that the tools (cudasim/tools) find the kernel's line for it.
template <class T>
[[gnu::always_inline]] inline T atomic_add(T* address, T value) {
  std::atomic_ref<T> ref(*address);
  if constexpr (std::is_floating_point_v<T>) {
    T old = ref.load(std::memory_order_relaxed);
    while (!ref.compare_exchange_weak(old, old + value, std::memory_order_relaxed)) {}
    return old;
  } else {
    return ref.fetch_add(value, std::memory_order_relaxed);
  }
}

}  // namespace detail
}  // namespace cudasim

#if defined(NDEBUG)
#define CUDASIM_ASSERT(...) static_cast<void>(0)
#else
#define CUDASIM_ASSERT(...)       \
  (static_cast<bool>(__VA_ARGS__) \
       ? static_cast<void>(0)     \
       : ::cudasim::detail::assert_failed(#__VA_ARGS__, __FILE__, __LINE__))
#endif

// Calling a CUDA feature the layer does not have stops compilation with this message.
#define CUDASIM_UNSUPPORTED(name, what)                                          \
  template <class... A>                                                          \
  ::cudasim::detail::AnyValue name(A&&...) {                                     \
    static_assert(::cudasim::detail::Unsupported<A...>::value, what              \
                  " is not supported by the CPU execution layer (cudasim); see " \
                  "cudasim/README.md");                                          \
    return {};                                                                   \
  }

// --- Barriers. The call site identifies the barrier: threads at different sites never meet.
inline void __syncthreads(std::source_location where = std::source_location::current()) {
  cudasim::detail::block_barrier(where);
}
// __syncthreads() that also counts the threads whose predicate is non-zero.
inline int __syncthreads_count(int predicate,
                               std::source_location where = std::source_location::current()) {
  return cudasim::detail::block_barrier(where, predicate != 0);
}
inline int __syncthreads_and(int predicate,
                             std::source_location where = std::source_location::current()) {
  const int n = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  return cudasim::detail::block_barrier(where, predicate != 0) == n;
}
inline int __syncthreads_or(int predicate,
                            std::source_location where = std::source_location::current()) {
  return cudasim::detail::block_barrier(where, predicate != 0) > 0;
}
// Waits for the lanes of `mask` (by default the whole warp), which must all call it too.
inline void __syncwarp(unsigned mask = 0xffffffffu,
                       std::source_location where = std::source_location::current()) {
  cudasim::detail::warp_op(cudasim::detail::WarpOp::sync, mask, 0, 0, 32, where);
}

// --- Warp shuffles. Any mask: the lanes it names meet (each must call the same shuffle with
// the same mask, and the caller must be one of them); `width` splits the warp into segments.
// A lane whose source lane is outside the mask reads cudasim::detail::kOutsideMask's bits.
template <cudasim::detail::Shufflable T>
T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32,
              std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  return cudasim::detail::shuffle(WarpOp::shfl_idx, mask, var, srcLane, width, where);
}
template <cudasim::detail::Shufflable T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32,
                 std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  return cudasim::detail::shuffle(WarpOp::shfl_up, mask, var, delta, width, where);
}
template <cudasim::detail::Shufflable T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32,
                   std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  return cudasim::detail::shuffle(WarpOp::shfl_down, mask, var, delta, width, where);
}
template <cudasim::detail::Shufflable T>
T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32,
                  std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  return cudasim::detail::shuffle(WarpOp::shfl_xor, mask, var, laneMask, width, where);
}

// --- Warp votes over the lanes of the mask: bit l of the ballot is lane l's predicate, 0 for
// the lanes outside the mask.
inline unsigned __ballot_sync(unsigned mask, int predicate,
                              std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  return static_cast<unsigned>(
      cudasim::detail::warp_op(WarpOp::ballot, mask, predicate != 0, 0, 32, where));
}
inline int __any_sync(unsigned mask, int predicate,
                      std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  return static_cast<int>(
      cudasim::detail::warp_op(WarpOp::any, mask, predicate != 0, 0, 32, where));
}
inline int __all_sync(unsigned mask, int predicate,
                      std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  return static_cast<int>(
      cudasim::detail::warp_op(WarpOp::all, mask, predicate != 0, 0, 32, where));
}
// The lanes of the warp that reach this __activemask() together. Branches are not tracked: the
// layer lets it open once nothing else in the block can move, and its result is the lanes
// that wait at it then (not those that returned or wait at another barrier).
inline unsigned __activemask(std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  return static_cast<unsigned>(cudasim::detail::warp_op(WarpOp::active, ~0u, 0, 0, 32, where));
}

// --- Warp match (compute capability 7.0): __match_any_sync gives each lane the lanes of the
// mask whose value has the same bits as its own; __match_all_sync gives the mask if all of
// them have the same value (and sets *pred to 1), else 0 (and *pred to 0).
template <cudasim::detail::Shufflable T>
unsigned __match_any_sync(unsigned mask, T value,
                          std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  return static_cast<unsigned>(
      cudasim::detail::warp_op(WarpOp::match_any, mask, bits, 0, 32, where));
}
template <cudasim::detail::Shufflable T>
unsigned __match_all_sync(unsigned mask, T value, int* pred,
                          std::source_location where = std::source_location::current()) {
  using cudasim::detail::WarpOp;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  const auto all =
      static_cast<unsigned>(cudasim::detail::warp_op(WarpOp::match_all, mask, bits, 0, 32, where));
  *pred = all != 0;
  return all;
}

// --- Warp reductions (compute capability 8.0; CUDA C++ Programming Guide, "Warp Reduce
// Functions"): every lane of the mask gets the sum, minimum, maximum, AND, OR or XOR of
// `value` over the lanes of the mask; add/min/max for unsigned and int, and/or/xor for
// unsigned. An int sum wraps around, as on a GPU.
namespace cudasim::detail {
inline unsigned warp_reduce(Reduce kind, unsigned mask, unsigned value,
                            std::source_location where) {
  return static_cast<unsigned>(
      warp_op(WarpOp::reduce, mask, value, static_cast<unsigned>(kind), 32, where));
}
}  // namespace cudasim::detail
inline unsigned __reduce_add_sync(unsigned mask, unsigned value,
                                  std::source_location where = std::source_location::current()) {
  return cudasim::detail::warp_reduce(cudasim::detail::Reduce::add, mask, value, where);
}
inline int __reduce_add_sync(unsigned mask, int value,
                             std::source_location where = std::source_location::current()) {
  return static_cast<int>(__reduce_add_sync(mask, static_cast<unsigned>(value), where));
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned value,
                                  std::source_location where = std::source_location::current()) {
  return cudasim::detail::warp_reduce(cudasim::detail::Reduce::min_unsigned, mask, value, where);
}
inline int __reduce_min_sync(unsigned mask, int value,
                             std::source_location where = std::source_location::current()) {
  return static_cast<int>(cudasim::detail::warp_reduce(cudasim::detail::Reduce::min_int, mask,
                                                       static_cast<unsigned>(value), where));
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned value,
                                  std::source_location where = std::source_location::current()) {
  return cudasim::detail::warp_reduce(cudasim::detail::Reduce::max_unsigned, mask, value, where);
}
inline int __reduce_max_sync(unsigned mask, int value,
                             std::source_location where = std::source_location::current()) {
  return static_cast<int>(cudasim::detail::warp_reduce(cudasim::detail::Reduce::max_int, mask,
                                                       static_cast<unsigned>(value), where));
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned value,
                                  std::source_location where = std::source_location::current()) {
  return cudasim::detail::warp_reduce(cudasim::detail::Reduce::bit_and, mask, value, where);
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned value,
                                 std::source_location where = std::source_location::current()) {
  return cudasim::detail::warp_reduce(cudasim::detail::Reduce::bit_or, mask, value, where);
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned value,
                                  std::source_location where = std::source_location::current()) {
  return cudasim::detail::warp_reduce(cudasim::detail::Reduce::bit_xor, mask, value, where);
}

// --- Bit tricks.
inline int __popc(unsigned x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return std::countl_zero(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1; }
inline int __ffsll(long long x) {
  return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1;
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }

// --- Atomics and fences. Each returns the old value, as in CUDA.
inline int atomicAdd(int* a, int v) { return cudasim::detail::atomic_add(a, v); }
inline unsigned atomicAdd(unsigned* a, unsigned v) { return cudasim::detail::atomic_add(a, v); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return cudasim::detail::atomic_add(a, v);
}
inline float atomicAdd(float* a, float v) { return cudasim::detail::atomic_add(a, v); }
inline double atomicAdd(double* a, double v) { return cudasim::detail::atomic_add(a, v); }

namespace cudasim::detail {
template <class T>
concept AtomicInt = std::is_same_v<T, int> || std::is_same_v<T, unsigned> ||
    std::is_same_v<T, long long> || std::is_same_v<T, unsigned long long>;
template <class T>
concept AtomicWord = std::is_same_v<T, int> || std::is_same_v<T, unsigned> ||
    std::is_same_v<T, unsigned long long> || std::is_same_v<T, unsigned short>;
template <class T>
concept AtomicBits =
    std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, unsigned long long>;
template <class T>
std::atomic_ref<T> atomic(T* address) {
  return std::atomic_ref<T>(*address);
}
}  // namespace cudasim::detail

template <class T>
requires std::is_same_v<T, int> || std::is_same_v<T, unsigned> T
atomicSub(T* a, std::type_identity_t<T> v) {
  return cudasim::detail::atomic(a).fetch_sub(v, std::memory_order_relaxed);
}
template <class T>
requires cudasim::detail::AtomicBits<T> || std::is_same_v<T, float> T
atomicExch(T* a, std::type_identity_t<T> v) {
  return cudasim::detail::atomic(a).exchange(v, std::memory_order_relaxed);
}
/// Writes `value` if *a == compare; returns the old *a either way.
template <cudasim::detail::AtomicWord T>
T atomicCAS(T* a, std::type_identity_t<T> compare, std::type_identity_t<T> value) {
  cudasim::detail::atomic(a).compare_exchange_strong(compare, value, std::memory_order_relaxed);
  return compare;  // on failure compare_exchange stores the old value in `compare`
}
template <cudasim::detail::AtomicInt T>
T atomicMax(T* a, std::type_identity_t<T> v) {
  auto ref = cudasim::detail::atomic(a);
  T old = ref.load(std::memory_order_relaxed);
  while (old < v && !ref.compare_exchange_weak(old, v, std::memory_order_relaxed)) {}
  return old;
}
template <cudasim::detail::AtomicInt T>
T atomicMin(T* a, std::type_identity_t<T> v) {
  auto ref = cudasim::detail::atomic(a);
  T old = ref.load(std::memory_order_relaxed);
  while (v < old && !ref.compare_exchange_weak(old, v, std::memory_order_relaxed)) {}
  return old;
}
/// CUDA's counters that wrap: atomicInc stores (old >= limit) ? 0 : old + 1, atomicDec
/// stores (old == 0 || old > limit) ? limit : old - 1; both return the old value.
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  auto ref = cudasim::detail::atomic(a);
  unsigned old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, old >= limit ? 0u : old + 1, std::memory_order_relaxed)) {}
  return old;
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
  auto ref = cudasim::detail::atomic(a);
  unsigned old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, old == 0 || old > limit ? limit : old - 1,
                                    std::memory_order_relaxed)) {}
  return old;
}
template <cudasim::detail::AtomicBits T>
T atomicAnd(T* a, std::type_identity_t<T> v) {
  return cudasim::detail::atomic(a).fetch_and(v, std::memory_order_relaxed);
}
template <cudasim::detail::AtomicBits T>
T atomicOr(T* a, std::type_identity_t<T> v) {
  return cudasim::detail::atomic(a).fetch_or(v, std::memory_order_relaxed);
}
template <cudasim::detail::AtomicBits T>
T atomicXor(T* a, std::type_identity_t<T> v) {
  return cudasim::detail::atomic(a).fetch_xor(v, std::memory_order_relaxed);
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// --- CUDA maths that the C library lacks (sqrt, sqrtf, fmaxf, ... come from <math.h>).
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
// The fast intrinsics compute the exact function here (a GPU's differ in the last bits).
inline float __fdividef(float x, float y) { return x / y; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; }  // NaN -> 0
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }  // ties to even
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(std::floor(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(std::ceil(x)); }
inline unsigned __float2uint_rn(float x) { return static_cast<unsigned>(std::nearbyint(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline int __mul24(int x, int y) { return x * y; }
inline unsigned __umul24(unsigned x, unsigned y) { return x * y; }
inline unsigned __umulhi(unsigned x, unsigned y) {
  return static_cast<unsigned>((std::uint64_t{x} * y) >> 32);
}
// Loads and stores with a cache hint (__ldg: read-only cache; __ldcs/__stcs: streaming, as in
// llm.c; ...): ordinary reads and writes here.
template <class T>
T __ldg(const T* p) {
  return *p;
}
template <class T>
T __ldcs(const T* p) {
  return *p;
}
template <class T>
T __ldcg(const T* p) {
  return *p;
}
template <class T>
T __ldca(const T* p) {
  return *p;
}
template <class T>
T __ldlu(const T* p) {
  return *p;
}
template <class T>
T __ldcv(const T* p) {
  return *p;
}
template <class T>
void __stcs(T* p, T v) {
  *p = v;
}
template <class T>
void __stcg(T* p, T v) {
  *p = v;
}
template <class T>
void __stwb(T* p, T v) {
  *p = v;
}
template <class T>
void __stwt(T* p, T v) {
  *p = v;
}
inline long long clock64() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

// CUDA's min and max for device code: plain overloads, as CUDA's are (so they win over std::'s
// templates); mixed signed and unsigned arguments give unsigned.
#define CUDASIM_MIN_MAX(A, B, R)                                                          \
  inline R min(A a, B b) {                                                                \
    return static_cast<R>(b) < static_cast<R>(a) ? static_cast<R>(b) : static_cast<R>(a); \
  }                                                                                       \
  inline R max(A a, B b) {                                                                \
    return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(b) : static_cast<R>(a); \
  }
CUDASIM_MIN_MAX(int, int, int)
CUDASIM_MIN_MAX(unsigned, unsigned, unsigned)
CUDASIM_MIN_MAX(int, unsigned, unsigned)
CUDASIM_MIN_MAX(unsigned, int, unsigned)
CUDASIM_MIN_MAX(long, long, long)
CUDASIM_MIN_MAX(unsigned long, unsigned long, unsigned long)
CUDASIM_MIN_MAX(long long, long long, long long)
CUDASIM_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
CUDASIM_MIN_MAX(long long, unsigned long long, unsigned long long)
CUDASIM_MIN_MAX(unsigned long long, long long, unsigned long long)
#undef CUDASIM_MIN_MAX
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double min(float a, double b) { return std::fmin(a, b); }
inline double max(float a, double b) { return std::fmax(a, b); }
inline double min(double a, float b) { return std::fmin(a, b); }
inline double max(double a, float b) { return std::fmax(a, b); }

// --- What the layer does not do: a clear compile-time error (see cudasim/README.md).
CUDASIM_UNSUPPORTED(tex1Dfetch, "texture memory (tex1Dfetch)")
CUDASIM_UNSUPPORTED(tex1D, "texture memory (tex1D)")
CUDASIM_UNSUPPORTED(tex2D, "texture memory (tex2D)")
CUDASIM_UNSUPPORTED(tex3D, "texture memory (tex3D)")
CUDASIM_UNSUPPORTED(cudaCreateTextureObject, "texture memory (cudaCreateTextureObject)")
CUDASIM_UNSUPPORTED(surf2Dread, "surface memory (surf2Dread)")
CUDASIM_UNSUPPORTED(surf2Dwrite, "surface memory (surf2Dwrite)")
CUDASIM_UNSUPPORTED(cudaLaunchCooperativeKernel, "a cooperative launch (grid-wide sync)")
CUDASIM_UNSUPPORTED(cudaLaunchKernel, "cudaLaunchKernel (launch with kernel<<<...>>>(...))")
CUDASIM_UNSUPPORTED(cudaFuncSetAttribute,
                    "cudaFuncSetAttribute (e.g. more than 48 KiB of shared memory)")
CUDASIM_UNSUPPORTED(cudaStreamBeginCapture, "CUDA graphs (cudaStreamBeginCapture)")
CUDASIM_UNSUPPORTED(cudaGraphLaunch, "CUDA graphs (cudaGraphLaunch)")
CUDASIM_UNSUPPORTED(cudaMemcpyPeer, "several devices (cudaMemcpyPeer)")
CUDASIM_UNSUPPORTED(__nanosleep, "__nanosleep (waiting for another block cannot end here)")
