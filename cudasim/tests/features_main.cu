// main() of the CUDA feature tests, which are built twice: through the CPU execution layer, and
// by nvcc. The nvcc build runs only where a device is: without one it exits 77 (ctest: skipped);
// with a device or driver that fails it fails with the error (cudasim/include/cudasim/gpu_presence.hpp).
#include <gtest/gtest.h>

#include <cstdio>

#include "check.cuh"
#if defined(__CUDACC__)
#include "cudasim/gpu_presence.hpp"
#endif

int main(int argc, char** argv) {
#if defined(__CUDACC__)
  if (const int status = cudasim::gpu::exit_status_before_tests(); status != 0) return status;
#endif
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
