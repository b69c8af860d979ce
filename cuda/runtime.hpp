// The one header every kernel file includes. Under nvcc it is CUDA; under a plain C++ compiler
// it is cudasim, which runs the same kernels on the CPU (see cudasim/README.md).
//
// Kernels are launched as everywhere in CUDA, in both builds:
//
//   kernel<<<grid, block>>>(args...);
//   kernel<<<grid, block, shared_bytes, stream>>>(args...);  // dynamic shared memory, stream
//
// (for g++, the build rewrites each launch in a .cu file into a call of the CPU layer: see
// cudasim/cu2cpp.py). Also here:
//
//   ANDREA_CUDA_CHECK(expr)      throws andrea::CudaError if expr is not cudaSuccess
//   ANDREA_CUDA_CHECK_LAUNCH()   after a launch: cudaGetLastError, then cudaDeviceSynchronize
#pragma once

#include <stdexcept>
#include <string>

#include "cuda/flavor.hpp"

#include <cuda_runtime.h>  // nvcc's, or under g++ the CPU layer's (cudasim/include/toolkit)

namespace andrea {

/// A CUDA runtime call that failed: which call, the error, where; under cudasim also the
/// simulator's account of the failure (which kernel, block and threads).
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

}  // namespace andrea

// cuda_check has one body per build (the cudasim one adds the layer's account of the failure):
// it sits in the build's own namespace (cuda/flavor.hpp), so that a program linking both builds
// (andrea-embed) keeps both. tests/odr/odr_check.py checks that no other symbol is defined
// differently by the two builds.
ANDREA_CUDA_BEGIN
namespace detail {
inline void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  std::string message = std::string(call) + " failed: " + cudaGetErrorName(code) + " (" +
                        cudaGetErrorString(code) + ") at " + file + ":" + std::to_string(line);
#if defined(CUDASIM_RUNTIME)
  if (const std::string detail = ::cudasim::last_error_detail(); !detail.empty()) {
    message += "\n" + detail;
  }
#endif
  throw CudaError(code, message);
}
}  // namespace detail
ANDREA_CUDA_END

#define ANDREA_CUDA_CHECK(expr) \
  ::andrea::cuda::detail::cuda_check((expr), #expr, __FILE__, __LINE__)
#define ANDREA_CUDA_CHECK_LAUNCH()              \
  do {                                          \
    ANDREA_CUDA_CHECK(cudaGetLastError());      \
    ANDREA_CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)
