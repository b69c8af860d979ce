// expect: kernel 'copy<float4>' cannot be called with these arguments
#include <cuda_runtime.h>

template <class T>
__global__ void copy(const T* in, T* out) {
  out[threadIdx.x] = in[threadIdx.x];
}

void run(const float* in, float* out) { copy<float4><<<1, 32>>>(in, out); }  // float, not float4
