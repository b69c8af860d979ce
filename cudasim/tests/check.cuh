// What the layer's tests need around the CUDA runtime, valid both under nvcc and through
// cu2cpp.py (the layer's <cuda_runtime.h>):
//
//   CHECK_CUDA(expr)    throws simtest::CudaError if expr is not cudaSuccess
//   CHECK_LAUNCH()      after a launch: cudaGetLastError, then cudaDeviceSynchronize
//   DeviceBuffer<T>     device memory that frees itself, with copies to and from the host
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace simtest {

/// A CUDA runtime call that failed: the call, the error's name and wording, file and line; on
/// the CPU layer also its account of the failure (kernel, block, threads).
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// Throws CudaError unless code is cudaSuccess: "call failed: cudaErrorX (text) at file:line".
inline void check(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  std::string message = std::string(call) + " failed: " + cudaGetErrorName(code) + " (" +
                        cudaGetErrorString(code) + ") at " + file + ":" + std::to_string(line);
#if !defined(__CUDACC__)
  if (const std::string detail = ::cudasim::last_error_detail(); !detail.empty()) {
    message += "\n" + detail;
  }
#endif
  throw CudaError(code, message);
}

/// `count` elements of T in device memory (uninitialised, or a copy of a host vector), freed
/// when the buffer goes. Each runtime call is checked (CudaError).
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0)
      check(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()), "cudaMalloc", __FILE__,
            __LINE__);
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    if (count_ > 0)
      check(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice), "cudaMemcpy", __FILE__,
            __LINE__);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  /// The whole buffer, copied into a new host vector.
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ > 0)
      check(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy", __FILE__,
            __LINE__);
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace simtest

#define CHECK_CUDA(expr) ::simtest::check((expr), #expr, __FILE__, __LINE__)
#define CHECK_LAUNCH()                   \
  do {                                   \
    CHECK_CUDA(cudaGetLastError());      \
    CHECK_CUDA(cudaDeviceSynchronize()); \
  } while (0)
