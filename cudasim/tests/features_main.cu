// main() of the CUDA feature tests, which are built twice: through the CPU execution layer, and
// by nvcc. The nvcc build exits 77 (ctest: skipped) on a machine without a GPU.
#include <gtest/gtest.h>

#include <cstdio>

#include "check.cuh"

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: skipping\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
