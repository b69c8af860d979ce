// expect: half-precision types are not supported by the CPU execution layer
#include <cuda_fp16.h>

#include <cuda_runtime.h>

__global__ void widen(const __half* in, float* out) { out[threadIdx.x] = __half2float(in[0]); }
