// What device code can call: barriers, warp shuffles, atomics, a few CUDA-only maths functions.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

namespace cudasim::detail {

enum class WarpOp : std::uint8_t { sync, shfl_idx, shfl_up, shfl_down, shfl_xor };

// Both suspend the calling CUDA thread until its barrier opens (see block.cpp).
void block_barrier(std::source_location where);
std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t bits, unsigned lane_arg, int width,
                      std::source_location where);

template <class T>
concept Shufflable = std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

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

// CUDA atomics are relaxed; blocks run in parallel on worker threads.
template <class T>
T atomic_add(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value, std::memory_order_relaxed);
}

}  // namespace cudasim::detail

// --- Barriers. The call site identifies the barrier: threads at different sites never meet.
inline void __syncthreads(std::source_location where = std::source_location::current()) {
  cudasim::detail::block_barrier(where);
}
inline void __syncwarp(unsigned mask = 0xffffffffu,
                       std::source_location where = std::source_location::current()) {
  cudasim::detail::warp_op(cudasim::detail::WarpOp::sync, mask, 0, 0, 32, where);
}

// --- Warp shuffles: the full mask only, every lane of the warp taking part.
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

// --- Atomics and fences. atomicAdd returns the old value, as in CUDA.
inline int atomicAdd(int* a, int v) { return cudasim::detail::atomic_add(a, v); }
inline unsigned atomicAdd(unsigned* a, unsigned v) { return cudasim::detail::atomic_add(a, v); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return cudasim::detail::atomic_add(a, v);
}
inline float atomicAdd(float* a, float v) { return cudasim::detail::atomic_add(a, v); }
inline double atomicAdd(double* a, double v) { return cudasim::detail::atomic_add(a, v); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// --- CUDA maths that the C library lacks (sqrt, sqrtf, fmaxf, ... come from <math.h>).
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
