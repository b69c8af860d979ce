// DeviceBuffer<T>: device memory that frees itself, with copies to and from the host.
// Included by kernel files only (it needs the CUDA runtime).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>

#include "cuda/flavor.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

template <class T>
class DeviceBuffer {
 public:
  /// count elements of uninitialised device memory. Throws andrea::CudaError.
  explicit DeviceBuffer(std::int64_t count) : count_(count) {
    if (count_ > 0) ANDREA_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  /// A device copy of host data.
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(static_cast<std::int64_t>(host.size())) {
    if (count_ > 0) ANDREA_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  std::int64_t size() const { return count_; }
  std::size_t bytes() const { return static_cast<std::size_t>(count_) * sizeof(T); }

  /// Copies the whole buffer to host memory of the same size.
  void copy_to(std::span<T> host) const {
    if (static_cast<std::int64_t>(host.size()) != count_) {
      throw std::logic_error("DeviceBuffer::copy_to: host span size differs from the buffer");
    }
    if (count_ > 0) ANDREA_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
  }

 private:
  T* data_ = nullptr;
  std::int64_t count_ = 0;
};

ANDREA_CUDA_END
