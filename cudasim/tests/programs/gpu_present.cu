// Run before each program's nvcc build (gpu-programs/*): exit status 0 if a CUDA device is
// present; 77 (ctest: skipped) if there is none; 1, with the error's name and text, if a device
// or driver is there and fails. The decision is cuda/device.hpp's device_presence (linked from
// cuda/device.cu), the same as every GPU test's.
#include <cstdio>

#define ANDREA_DEVICE_COUNT_SEAM  // a test program: ANDREA_FAKE_DEVICE_COUNT (cuda/device.hpp)
#include "cuda/device.hpp"

int main() {
  const andrea::cuda::DevicePresence device = andrea::cuda::device_presence_in_test();
  if (device.kind == andrea::cuda::DevicePresence::none) {
    std::printf("skipped: %s\n", device.reason.c_str());
  } else if (device.kind == andrea::cuda::DevicePresence::broken) {
    std::fprintf(stderr, "failed: %s\n", device.reason.c_str());
  }
  return device.exit_status();
}
