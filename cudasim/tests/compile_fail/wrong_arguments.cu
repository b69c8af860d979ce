// expect: kernel 'scale' cannot be called with these arguments
#include <cuda_runtime.h>

__global__ void scale(float* x, int n, float a) { x[threadIdx.x] *= a + static_cast<float>(n); }

void run(float* x) { scale<<<1, 32>>>(x, 4); }  // the factor is missing
