// expect: tex1Dfetch (texture and surface memory) is not supported by the CPU execution layer
#include <cuda_runtime.h>

__global__ void read(unsigned long long tex, float* out) {
  out[threadIdx.x] = tex1Dfetch<float>(tex, threadIdx.x);
}
