// Reduction kernels in a header, as CUDA's samples keep them: a template over the element type
// and the block size, dynamic shared memory reached through the samples' SharedMemory<T>
// (declared type first, `extern int __shared__`: one extern array may not take several types),
// the sequential addressing and first add during load of Mark Harris's "Optimizing Parallel
// Reduction in CUDA" (kernel 4), and the launch itself inside a host function of the header.
#pragma once

#include <cuda_runtime.h>

/// The block's dynamic shared memory as a T array.
template <class T>
struct SharedMemory {
  __device__ inline operator T*() {
    extern int __shared__ smem_words[];
    return reinterpret_cast<T*>(smem_words);
  }
};
template <>
struct SharedMemory<double> {  // 8-byte alignment
  __device__ inline operator double*() {
    extern double __shared__ smem_doubles[];
    return smem_doubles;
  }
};

template <class T, unsigned blockSize>
__global__ void reduce4(const T* g_idata, T* g_odata, unsigned n) {
  T* sdata = SharedMemory<T>();
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  T sum = (i < n) ? g_idata[i] : T(0);
  if (i + blockSize < n) sum += g_idata[i + blockSize];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/// Sums the n values at d_in on the device, one partial sum per block into d_partial
/// (blocks = ceil(n / (2 * threads)) of them); returns the number of blocks.
template <class T, unsigned threads>
unsigned reducePartial(const T* d_in, T* d_partial, unsigned n) {
  const unsigned blocks = (n + threads * 2 - 1) / (threads * 2);
  reduce4<T, threads><<<blocks, threads, threads * sizeof(T)>>>(d_in, d_partial, n);
  return blocks;
}
