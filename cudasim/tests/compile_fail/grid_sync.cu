// expect: cooperative_groups::this_grid (grid-wide groups) is not supported by the CPU execution
// layer
#include <cooperative_groups.h>

#include <cuda_runtime.h>

__global__ void two_phases(float* x) {
  auto grid = cooperative_groups::this_grid();
  x[threadIdx.x] = 1.0f;
  grid.sync();
}
