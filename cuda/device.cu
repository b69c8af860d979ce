#include "cuda/device.hpp"

#include <utility>

#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

DevicePresence device_presence() { return ::cudasim::gpu::presence(); }

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
