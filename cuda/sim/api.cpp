// The runtime API on host memory, and the per-host-thread error state.
#include "cuda/sim/api.hpp"

#include "cuda/sim/memory.hpp"

#include <cstring>
#include <utility>

namespace cudasim {
namespace {

thread_local cudaError_t t_last = cudaSuccess;     // what cudaGetLastError() returns
thread_local cudaError_t t_pending = cudaSuccess;  // what cudaDeviceSynchronize() returns
thread_local std::string t_detail;

bool on_device(const void* p, std::size_t count) { return detail::inside_allocation(p, count); }

cudaError_t outside(const char* call, const char* what) {
  return detail::fail(cudaErrorInvalidValue, std::string(call) + ": the " + what +
                                                 " range is not inside one cudaMalloc allocation");
}

}  // namespace

std::string last_error_detail() { return t_detail; }

namespace detail {
cudaError_t fail(cudaError_t error, std::string detail) {
  t_last = error;
  t_detail = std::move(detail);
  return error;
}
void fail_launch(std::string detail, cudaError_t error) {
  fail(error, std::move(detail));
  t_pending = error;
}
}  // namespace detail
}  // namespace cudasim

using cudasim::detail::fail;

cudaError_t cudaMalloc(void** ptr, std::size_t size) {
  if (ptr == nullptr) return fail(cudaErrorInvalidValue, "cudaMalloc: ptr is null");
  *ptr = nullptr;
  if (size == 0) return cudaSuccess;
  void* p = cudasim::detail::allocate(size);  // poisoned, between guard pages: memory.hpp
  if (p == nullptr) {
    return fail(cudaErrorMemoryAllocation,
                "cudaMalloc: cannot allocate " + std::to_string(size) + " bytes");
  }
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  if (!cudasim::detail::release(ptr)) {
    return fail(cudaErrorInvalidValue, "cudaFree: pointer not from cudaMalloc, or already freed");
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) {
    return fail(cudaErrorInvalidMemcpyDirection, "cudaMemcpy: unknown cudaMemcpyKind");
  }
  if (count == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) {
    return fail(cudaErrorInvalidValue, "cudaMemcpy: null pointer");
  }
  const bool to_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool from_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (to_device && !cudasim::on_device(dst, count)) {
    return cudasim::outside("cudaMemcpy", "destination");
  }
  if (from_device && !cudasim::on_device(src, count)) {
    return cudasim::outside("cudaMemcpy", "source");
  }
  std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, std::size_t count) {
  if (count == 0) return cudaSuccess;
  if (!cudasim::on_device(ptr, count)) return cudasim::outside("cudaMemset", "destination");
  std::memset(ptr, value, count);
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() { return std::exchange(cudasim::t_pending, cudaSuccess); }

cudaError_t cudaGetLastError() {
  cudasim::t_pending = cudaSuccess;
  return std::exchange(cudasim::t_last, cudaSuccess);
}

cudaError_t cudaPeekAtLastError() { return cudasim::t_last; }

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
  }
  return "unrecognized error code";
}

const char* cudaGetErrorString(cudaError_t error) {  // CUDA's own wording
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
  }
  return "unrecognized error code";
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return fail(cudaErrorInvalidValue, "cudaGetDeviceCount: count is null");
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return fail(cudaErrorInvalidValue, "cudaGetDevice: device is null");
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device != 0) {
    return fail(cudaErrorInvalidDevice, "cudaSetDevice: the simulator has device 0 only");
  }
  return cudaSuccess;
}
