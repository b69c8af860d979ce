// Is there a device to run the kernels on?
//
// device_presence() is the one place that decides whether the GPU tests run, skip or fail
// (tests/support/main.cpp, cudasim/tests/features_main.cu, cudasim/tests/programs/gpu_present.cu,
// the programs' --backend gpu):
//
//   present  cudaGetDeviceCount succeeded with at least one device: run
//   none     no device, and nothing broken: skip (exit status 77, "skipped" in ctest)
//              - cudaErrorNoDevice, or cudaSuccess with 0 devices
//              - cudaErrorInsufficientDriver while cudaDriverGetVersion reports 0, which CUDA
//                documents as "no driver is installed" (a machine without a GPU driver)
//   broken   any other error: a device or driver that is there and fails (a driver older than
//            the runtime, a device in a bad state, ...): fail (exit status 1) with the error's
//            name and text, never "skipped"
#pragma once

#include <string>

#include "cuda/flavor.hpp"

#if defined(ANDREA_DEVICE_COUNT_SEAM)
#include <cstdio>
#include <cstdlib>
#endif

ANDREA_CUDA_BEGIN

struct DevicePresence {
  enum Kind { present, none, broken };
  Kind kind = present;
  std::string reason;  ///< empty when present; else why the kernels cannot run here

  /// What a test program exits with instead of running its tests: 77 (ctest: skipped) for
  /// none, 1 (failed) for broken; 0 when present (run them).
  int exit_status() const { return kind == none ? 77 : kind == broken ? 1 : 0; }
};

/// Asks the runtime (cudaGetDeviceCount, and cudaDriverGetVersion after an error) and decides.
DevicePresence device_presence();

/// The decision alone, from cudaGetDeviceCount's error code and count and
/// cudaDriverGetVersion's version (0: no driver installed).
DevicePresence device_presence_from(int cuda_error, int count, int driver_version);

/// True when a device is usable. Otherwise false, with device_presence()'s reason in *reason.
/// The CPU execution layer always has one device.
bool device_available(std::string* reason);

/// A one-line description of the device ("NVIDIA H200, sm_90, 132 SMs" or the
/// CPU execution layer's own line).
std::string device_name();

#if defined(ANDREA_DEVICE_COUNT_SEAM)
/// Test programs only (ANDREA_DEVICE_COUNT_SEAM): ANDREA_FAKE_DEVICE_COUNT="ERROR COUNT DRIVER"
/// replaces what the runtime says: cudaGetDeviceCount's error code (a number), the device count
/// and the driver version; e.g. "0 0 12040" (no device), "35 0 0" (no driver), "35 0 11020"
/// (a CUDA 11.2 driver under a newer runtime), "999 0 12040" (cudaErrorUnknown). The
/// decision is device_presence_from's either way.
inline DevicePresence device_presence_in_test() {
  const char* fake = std::getenv("ANDREA_FAKE_DEVICE_COUNT");
  if (fake == nullptr) return device_presence();
  int error = 0, count = 0, driver = 0;
  char extra = 0;
  if (std::sscanf(fake, "%d %d %d %c", &error, &count, &driver, &extra) != 3) {
    return {DevicePresence::broken, std::string("ANDREA_FAKE_DEVICE_COUNT is '") + fake +
                                        "': expected three numbers, ERROR COUNT DRIVER "
                                        "(e.g. \"100 0 12040\")"};
  }
  return device_presence_from(error, count, driver);
}
#endif

ANDREA_CUDA_END
