#include "cuda/device.hpp"

#include <utility>

#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {
std::string cuda_version_text(int version) {
  if (version <= 0) return "unknown (cudaDriverGetVersion failed)";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}
}  // namespace

DevicePresence device_presence_from(int cuda_error, int count, int driver_version) {
  const auto error = static_cast<cudaError_t>(cuda_error);
  const std::string said = std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(error) +
                           " (" + cudaGetErrorString(error) + ")";
  if (error == cudaSuccess && count > 0) return {DevicePresence::present, {}};
  if (error == cudaSuccess) {
    return {DevicePresence::none,
            "no CUDA device: cudaGetDeviceCount found " + std::to_string(count) + " devices"};
  }
  if (error == cudaErrorNoDevice) return {DevicePresence::none, "no CUDA device: " + said};
  if (error == cudaErrorInsufficientDriver && driver_version == 0) {
    return {DevicePresence::none,
            "no CUDA device: no CUDA driver is installed "
            "(cudaDriverGetVersion reports 0; " +
                said + ")"};
  }
  std::string reason = "the CUDA device fails: " + said;
  if (error == cudaErrorInsufficientDriver) {
    reason += ": the driver supports CUDA " + cuda_version_text(driver_version) +
              ", this program's runtime is CUDA " + cuda_version_text(CUDART_VERSION) +
              " (install a newer driver, or build with an older CUDA toolkit)";
  }
  return {DevicePresence::broken, reason};
}

DevicePresence device_presence() {
  int count = 0, driver = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();  // reported here, not left for the next call
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = -1;
  }
  return device_presence_from(error, count, driver);
}

bool device_available(std::string* reason) {
  DevicePresence presence = device_presence();
  *reason = std::move(presence.reason);
  return presence.kind == DevicePresence::present;
}

std::string device_name() {
#if defined(__CUDACC__)
  cudaDeviceProp prop{};
  ANDREA_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return std::string(prop.name) + ", sm_" + std::to_string(prop.major * 10 + prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs";
#else
  return "CUDA kernels run on the CPU by cudasim/ (fibers, one per CUDA thread)";
#endif
}

ANDREA_CUDA_END
