// Lesson 02_norm: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/norm.hpp.
// Grade it: python3 lessons/grade.py -L L02
// Lesson 2 — L2 norm of every row on the device.
//
//   grid  = rows blocks, block r computes ||m[r]||
//   block = 256 threads; thread i sums x^2 over columns i, i + 256, i + 512, ...
//   then the block adds its 256 partial sums:
//
//     shared memory   [p0 p1 ... p127 | p128 ... p255]   256 partial sums
//     step 1          p[i] += p[i + 128]  for i < 128     __syncthreads()
//     step 2          p[i] += p[i + 64]   for i < 64      __syncthreads()
//     step 3          p[i] += p[i + 32]   for i < 32      __syncthreads()
//     warp 0          32 values -> 1 with __shfl_down_sync (16, 8, 4, 2, 1)
//
// Each __syncthreads() makes every write of a step visible before the next step
// reads it; without it a thread may add a partial sum that is not there yet.
// The warp step needs no barrier: a shuffle exchanges registers within a warp.
// (cuda/block_reduce.cuh packages the same reduction for lessons 3 and 6.)
//
// Squares are summed in double, as in the reference: a float32 squared can
// neither overflow nor underflow a double, so [1e20, 1, 1] gives 1e20.
#include "cuda/norm.hpp"

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

constexpr int kThreads = 256;

__global__ void row_norms_kernel(const float* m, float* out, std::int64_t cols) {
  // TODO: about 20 lines (the body of row_norms_kernel).
}

// Validated (rows, cols) in, rows norms out.
void launch_row_norms(ConstFloatView m, std::span<float> out) {
  const DeviceBuffer<float> d_m(m.flat());
  DeviceBuffer<float> d_out(m.rows());
  // TODO: launch the kernel here, about 1 line.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out);
}

}  // namespace

float l2_norm(std::span<const float> v) {
  // TODO(lesson 02_norm): write the kernel and its launch; then delete the next line.
  throw NotImplemented("02_norm/norm.cu", "l2_norm");
  check::l2_norm_args(v);
  float norm = 0.0f;
  launch_row_norms({v.data(), 1, static_cast<std::int64_t>(v.size())}, {&norm, 1});
  return norm;
}

void row_norms(ConstFloatView m, std::span<float> out) {
  // TODO(lesson 02_norm): write the kernel and its launch; then delete the next line.
  throw NotImplemented("02_norm/norm.cu", "row_norms");
  check::row_norms_args(m, out);
  launch_row_norms(m, out);
}

ANDREA_CUDA_END
