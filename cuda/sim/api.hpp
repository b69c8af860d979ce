// The CUDA runtime API on host memory: errors, allocation, copies, synchronisation.
//
// Differences from CUDA worth knowing:
// - cudaMalloc fills new memory with 0xff bytes (a float NaN), so a kernel that reads memory
//   nobody wrote gets loud garbage instead of a lucky zero.
// - Each allocation lies between guard pages: a kernel that reads or writes outside it fails
//   with cudaErrorIllegalAddress, and last_error_detail() says which kernel, block and thread,
//   read or write, and where the address lies ("12 bytes past the end of a 3,072-byte
//   allocation"), like compute-sanitizer's memcheck. See memory.hpp for what is not caught.
// - cudaMemcpy/cudaMemset check that the device side lies inside one cudaMalloc allocation.
// - A failed launch is not sticky: once reported, the next calls succeed again.
#pragma once

#include <cstddef>
#include <string>

// The values are CUDA's own.
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
};
using cudaError_t = cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

cudaError_t cudaMalloc(void** ptr, std::size_t size);  // 256-byte aligned, like CUDA
template <class T>
cudaError_t cudaMalloc(T** ptr, std::size_t size) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, size);
  if (ptr != nullptr) *ptr = static_cast<T*>(p);  // nullptr on failure
  return e;
}
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* ptr, int value, std::size_t count);
cudaError_t cudaDeviceSynchronize();  // reports (and clears) a failure of the last launch
cudaError_t cudaGetLastError();       // returns the last error and resets it to cudaSuccess
cudaError_t cudaPeekAtLastError();    // returns the last error, keeps it
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetDeviceCount(int* count);  // one simulated device
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);

namespace cudasim {

/// The full story of the latest failure on this host thread (which kernel, block and threads,
/// which barrier), or "" if nothing has failed. Kept after cudaGetLastError() clears the code.
std::string last_error_detail();

namespace detail {
cudaError_t fail(cudaError_t error, std::string detail);  // records error + detail, returns error
// a kernel failed while running
void fail_launch(std::string detail, cudaError_t error = cudaErrorLaunchFailure);
}  // namespace detail

}  // namespace cudasim
