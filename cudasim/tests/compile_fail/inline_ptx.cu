// expect: inline PTX (asm) is not supported by the CPU execution layer
#include <cuda_runtime.h>

__global__ void lane_id(unsigned* out) {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  out[threadIdx.x] = lane;
}
