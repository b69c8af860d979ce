// block_sum: the sum of one double per thread over a whole block — the
// reduction written out in lesson 2 (cuda/norm.cu), packaged for the dot product
// (lesson 3) and parameter count (lesson 6) kernels.
//
//   1. every thread writes its value to shared memory;
//   2. tree reduction in shared memory: at each step the first half of the
//      active threads adds the second half (256 -> 128 -> 64 -> 32), with a
//      __syncthreads() between steps so no thread reads a value before it is written;
//   3. the last 32 values are summed inside warp 0 with __shfl_down_sync, which
//      needs no shared memory and no __syncthreads: the full mask 0xffffffff makes
//      all 32 lanes of the warp meet at each shuffle.
// Requires blockDim.x == kBlockSize (a power of two, >= 64), 1-D blocks, and every
// thread of the block calling it (it holds __syncthreads). The result is valid
// in thread 0 only.
#pragma once

#include "cuda/flavor.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

template <int kBlockSize>
__device__ double block_sum(double value) {
  static_assert(kBlockSize >= 64 && (kBlockSize & (kBlockSize - 1)) == 0);
  __shared__ double partial[kBlockSize];
  const unsigned tid = threadIdx.x;
  partial[tid] = value;
  __syncthreads();
  for (unsigned active = kBlockSize / 2; active >= 32; active /= 2) {
    if (tid < active) partial[tid] += partial[tid + active];
    __syncthreads();
  }
  double sum = tid < 32 ? partial[tid] : 0.0;
  if (tid < 32) {
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  return sum;
}

ANDREA_CUDA_END
