// The SharedMemory<T> idiom of NVIDIA's samples (reduction), in a header as there: extern
// __shared__ arrays of different element types, declared in several functions and in a
// specialisation, all views of the one dynamic shared memory of the block. The layer's build
// rewrites this header with the .cu file that includes it (cu2cpp.py).
#pragma once

template <class T>
struct SharedMemory {
  __device__ inline operator T*() {
    extern __shared__ int __smem[];
    return (T*)__smem;
  }
  __device__ inline operator const T*() const {
    extern __shared__ int __smem[];
    return (T*)__smem;
  }
};
template <>
struct SharedMemory<double> {
  __device__ inline operator double*() {
    extern __shared__ double __smem_d[];
    return (double*)__smem_d;
  }
  __device__ inline operator const double*() const {
    extern __shared__ double __smem_d[];
    return (double*)__smem_d;
  }
};
