// main() of the CUDA feature tests, which are built twice: through the CPU execution layer, and
// by nvcc. The nvcc build runs only where a device is: without one it exits 77 (ctest: skipped);
// with a device or driver that fails it fails with the error (cuda/device.hpp, device_presence,
// linked from cuda/device.cu).
#include <gtest/gtest.h>

#include <cstdio>

#include "cuda/runtime.hpp"
#if defined(__CUDACC__)
#define ANDREA_DEVICE_COUNT_SEAM  // a test program: ANDREA_FAKE_DEVICE_COUNT (cuda/device.hpp)
#include "cuda/device.hpp"
#endif

int main(int argc, char** argv) {
#if defined(__CUDACC__)
  const andrea::cuda::DevicePresence device = andrea::cuda::device_presence_in_test();
  if (device.kind != andrea::cuda::DevicePresence::present) {
    std::fprintf(device.kind == andrea::cuda::DevicePresence::none ? stdout : stderr, "%s: %s\n",
                 device.kind == andrea::cuda::DevicePresence::none ? "skipped" : "failed",
                 device.reason.c_str());
    return device.exit_status();
  }
#endif
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
