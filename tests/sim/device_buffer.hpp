// A cudaMalloc'ed array for the tests: filled from a host vector, read back with get().
#pragma once

#include <cstddef>
#include <vector>

#include "cuda/runtime.hpp"

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(std::size_t n) { ANDREA_CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    ANDREA_CUDA_CHECK(
        cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr); }
  std::vector<T> get(std::size_t n) const {
    std::vector<T> host(n);
    ANDREA_CUDA_CHECK(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};
