// DeviceBuffer<T>: device memory that frees itself, with copies to and from the host.
// Included by kernel files only (it needs the CUDA runtime).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

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
  explicit DeviceBuffer(std::span<const T> host)
      : DeviceBuffer(static_cast<std::int64_t>(host.size())) {
    if (count_ > 0)
      ANDREA_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  std::int64_t size() const { return count_; }
  std::size_t bytes() const { return static_cast<std::size_t>(count_) * sizeof(T); }

  /// Copies the first host.size() elements to host memory (the whole buffer when the sizes
  /// agree: a buffer sized for the largest batch serves smaller ones).
  void copy_to(std::span<T> host) const {
    if (static_cast<std::int64_t>(host.size()) > count_) {
      throw std::logic_error("DeviceBuffer::copy_to: host span larger than the buffer");
    }
    if (!host.empty())
      ANDREA_CUDA_CHECK(cudaMemcpy(host.data(), data_, host.size_bytes(), cudaMemcpyDeviceToHost));
  }
  /// The whole buffer, copied into a new host vector.
  std::vector<T> to_host() const {
    std::vector<T> host(static_cast<std::size_t>(count_));
    copy_to(host);
    return host;
  }
  /// Overwrites the first host.size() elements with host data.
  void copy_from(std::span<const T> host) {
    if (static_cast<std::int64_t>(host.size()) > count_) {
      throw std::logic_error("DeviceBuffer::copy_from: host span larger than the buffer");
    }
    if (!host.empty())
      ANDREA_CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  }

 private:
  T* data_ = nullptr;
  std::int64_t count_ = 0;
};

ANDREA_CUDA_END
