#include "cuda/device.hpp"

#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

bool device_available(std::string* reason) {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    *reason = std::string("no CUDA device: cudaGetDeviceCount returned ") +
              cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
    return false;
  }
  if (count == 0) {
    *reason = "no CUDA device: cudaGetDeviceCount found 0 devices";
    return false;
  }
  return true;
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
