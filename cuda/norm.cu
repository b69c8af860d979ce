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
  // BEGIN SOLUTION
  const float* row = m + static_cast<std::int64_t>(blockIdx.x) * cols;
  double squares = 0.0;
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const double x = row[c];
    squares += x * x;
  }

  __shared__ double partial[kThreads];
  const unsigned tid = threadIdx.x;
  partial[tid] = squares;
  __syncthreads();
  for (unsigned active = kThreads / 2; active >= 32; active /= 2) {
    if (tid < active) partial[tid] += partial[tid + active];
    __syncthreads();
  }
  if (tid < 32) {
    double sum = partial[tid];
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid == 0) out[blockIdx.x] = static_cast<float>(sqrt(sum));
  }
  // END SOLUTION
}

// Validated (rows, cols) in, rows norms out.
void launch_row_norms(ConstFloatView m, std::span<float> out) {
  const DeviceBuffer<float> d_m(m.flat());
  DeviceBuffer<float> d_out(m.rows());
  // BEGIN SOLUTION (launch)
  row_norms_kernel<<<static_cast<unsigned>(m.rows()), kThreads>>>(d_m.get(), d_out.get(), m.cols());
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out);
}

}  // namespace

float l2_norm(std::span<const float> v) {
  check::l2_norm_args(v);
  float norm = 0.0f;
  launch_row_norms({v.data(), 1, static_cast<std::int64_t>(v.size())}, {&norm, 1});
  return norm;
}

void row_norms(ConstFloatView m, std::span<float> out) {
  check::row_norms_args(m, out);
  launch_row_norms(m, out);
}

ANDREA_CUDA_END
