// Is there a GPU to run the nvcc build of a program on? One rule for every program that runs on
// a device when there is one and is skipped when there is none (the layer's GPU twins of its
// tests, and any project's GPU tests):
//
//   present  cudaGetDeviceCount succeeded with at least one device: run
//   none     no device, and nothing broken: skip (exit status 77, "skipped" in ctest)
//              - cudaErrorNoDevice, or cudaSuccess with 0 devices
//              - cudaErrorInsufficientDriver while cudaDriverGetVersion reports 0, which CUDA
//                documents as "no driver is installed" (a machine without a GPU driver)
//   broken   any other error: a device or driver that is there and fails (a driver older than
//            the runtime, a device in a bad state, ...): fail (exit status 1) with the error's
//            name and text, never "skipped"
//
// Header-only, for nvcc, for g++ with CUDA's own headers, and for g++ through the layer (there it
// always finds its one device). Source of the codes: the CUDA Runtime API, cudaGetDeviceCount and
// cudaDriverGetVersion.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cudasim::gpu {
// One name, two bodies: a program may link this header's functions compiled against CUDA's own
// runtime (by nvcc, or by g++ with CUDA's headers) and against the layer's. The inline namespace
// gives each runtime's copy a name of its own, so the linker never keeps one for both (C++'s
// one-definition rule). CUDASIM_RUNTIME is the layer's <cuda_runtime.h>.
#if defined(CUDASIM_RUNTIME)
inline namespace layer_build {
#else
inline namespace cuda_build {
#endif

struct Presence {
  enum Kind { present, none, broken };
  Kind kind = present;
  std::string reason;  ///< empty when present; else why the kernels cannot run here

  /// What a test program exits with instead of running its tests: 77 (ctest: skipped) for
  /// none, 1 (failed) for broken; 0 when present (run them).
  int exit_status() const { return kind == none ? 77 : kind == broken ? 1 : 0; }
};

/// "12.4" for 12040; "unknown (...)" for 0 or less.
inline std::string cuda_version_text(int version) {
  if (version <= 0) return "unknown (cudaDriverGetVersion failed)";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/// The decision alone, from cudaGetDeviceCount's error code and count and cudaDriverGetVersion's
/// version (0: no driver installed).
inline Presence presence_from(int cuda_error, int count, int driver_version) {
  const auto error = static_cast<cudaError_t>(cuda_error);
  const std::string said = std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(error) +
                           " (" + cudaGetErrorString(error) + ")";
  if (error == cudaSuccess && count > 0) return {Presence::present, {}};
  if (error == cudaSuccess) {
    return {Presence::none,
            "no CUDA device: cudaGetDeviceCount found " + std::to_string(count) + " devices"};
  }
  if (error == cudaErrorNoDevice) return {Presence::none, "no CUDA device: " + said};
  if (error == cudaErrorInsufficientDriver && driver_version == 0) {
    return {Presence::none, "no CUDA device: no CUDA driver is installed "
                            "(cudaDriverGetVersion reports 0; " + said + ")"};
  }
  std::string reason = "the CUDA device fails: " + said;
  if (error == cudaErrorInsufficientDriver) {
    reason += ": the driver supports CUDA " + cuda_version_text(driver_version) +
              ", this program's runtime is CUDA " + cuda_version_text(CUDART_VERSION) +
              " (install a newer driver, or build with an older CUDA toolkit)";
  }
  return {Presence::broken, reason};
}

/// Asks the runtime (cudaGetDeviceCount, and cudaDriverGetVersion after an error) and decides.
inline Presence presence() {
  int count = 0, driver = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();  // reported here, not left for the next call
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = -1;
  }
  return presence_from(error, count, driver);
}

/// For test programs: CUDASIM_FAKE_DEVICE_COUNT="ERROR COUNT DRIVER" replaces what the runtime
/// says (cudaGetDeviceCount's error code, the device count, the driver version), so the split
/// between skip and failure is tested without a GPU: "0 0 12040" (no device), "35 0 0" (no
/// driver), "35 0 11020" (a CUDA 11.2 driver under a newer runtime), "999 0 12040"
/// (cudaErrorUnknown). Unset: presence().
inline Presence presence_in_test() {
  const char* fake = std::getenv("CUDASIM_FAKE_DEVICE_COUNT");
  if (fake == nullptr) return presence();
  int error = 0, count = 0, driver = 0;
  char extra = 0;
  if (std::sscanf(fake, "%d %d %d %c", &error, &count, &driver, &extra) != 3) {
    return {Presence::broken, std::string("CUDASIM_FAKE_DEVICE_COUNT is '") + fake +
                                  "': expected three numbers, ERROR COUNT DRIVER "
                                  "(e.g. \"100 0 12040\")"};
  }
  return presence_from(error, count, driver);
}

/// The start of a test program's main(): 0 to run its tests; else it has printed why ("skipped:
/// ..." on stdout, "failed: ..." on stderr) and main returns this exit status.
inline int exit_status_before_tests() {
  const Presence device = presence_in_test();
  if (device.kind == Presence::none) std::printf("skipped: %s\n", device.reason.c_str());
  if (device.kind == Presence::broken) std::fprintf(stderr, "failed: %s\n", device.reason.c_str());
  return device.exit_status();
}

}  // inline namespace
}  // namespace cudasim::gpu
