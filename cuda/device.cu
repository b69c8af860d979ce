#include "cuda/device.hpp"

#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

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
