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
// - Streams exist but run synchronously: a launch or an *Async copy on any stream has finished
//   when the call returns, so stream order and overlap cannot be observed. Events record the
//   host clock at cudaEventRecord, so cudaEventElapsedTime measures CPU time.
// - cudaMallocManaged and cudaMallocHost memory come from cudaMalloc: host code and kernels can
//   both read them (everything is host memory here).
// - cudaGetDeviceProperties describes a pretend device: see cudaGetDeviceProperties below.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

// cudaError_t (every code, CUDA's values), cudaMemcpyKind, cudaDeviceAttr, cudaStream_t, ...
#include <driver_types.h>

// The runtime API version this layer follows (CUDA 13.0), as <cuda_runtime_api.h> defines it;
// helper headers test the guard.
#define CUDART_VERSION 13000
#define __CUDA_RUNTIME_API_H__

namespace cudasim {

/// The full story of the latest failure on this host thread (which kernel, block and threads,
/// which barrier), or "" if nothing has failed. Kept after cudaGetLastError() clears the code.
std::string last_error_detail();

namespace detail {
cudaError_t fail(cudaError_t error, std::string detail);  // records error + detail, returns error
bool stream_valid(cudaStream_t stream);                   // null or created, not destroyed
/// "cudaMemcpyToSymbol: offset 4 + count 16 bytes is past the symbol's 16 bytes" (or: null pointer)
std::string symbol_range(const char* call, std::size_t offset, std::size_t count,
                         std::size_t symbol_bytes, bool null_pointer);
void fail_launch(std::string detail,  // a kernel failed while running
                 cudaError_t error = cudaErrorLaunchFailure);
/// A launch refused before it ran (its configuration, a limit of the layer): recorded as by
/// fail(). Like fail_launch, kept until the program asks (cudaGetLastError,
/// cudaPeekAtLastError, cudaDeviceSynchronize); one it never asks about is printed on stderr
/// when the program ends, so that a program that ignores errors does not fail without a word.
void fail_to_launch(cudaError_t error, std::string detail);
/// Keeps a failed launch's text for take_launch_tally() (launch.hpp).
void note_launch_failure(const std::string& detail);
}  // namespace detail

}  // namespace cudasim

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
cudaError_t cudaDeviceReset();  // frees nothing: the process's memory goes when it exits
/// CUDA 13.0 for both: 13000 (1000 * major + 10 * minor, as CUDA writes it).
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
constexpr unsigned cudaDeviceScheduleAuto = 0, cudaDeviceScheduleSpin = 1,
                   cudaDeviceScheduleYield = 2, cudaDeviceScheduleBlockingSync = 4,
                   cudaDeviceMapHost = 8, cudaDeviceLmemResizeToMax = 16;
cudaError_t cudaSetDeviceFlags(unsigned flags);  // accepted; nothing to schedule differently
/// Free and total global memory: the host's (physical memory available and installed).
cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total);

// --- More allocation and copies.
constexpr unsigned cudaMemAttachGlobal = 1, cudaMemAttachHost = 2;
cudaError_t cudaMallocManaged(void** ptr, std::size_t size, unsigned flags = cudaMemAttachGlobal);
cudaError_t cudaMallocHost(void** ptr, std::size_t size);
cudaError_t cudaFreeHost(void* ptr);
constexpr unsigned cudaHostAllocDefault = 0, cudaHostAllocPortable = 1, cudaHostAllocMapped = 2,
                   cudaHostAllocWriteCombined = 4;
cudaError_t cudaHostAlloc(void** ptr, std::size_t size, unsigned flags);  // = cudaMallocHost
/// The device address of mapped host memory: the same address here.
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned flags);
/// A 2D allocation of `height` rows of `width` bytes; *pitch: the row stride, a multiple of 256.
cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height);
template <class T>
cudaError_t cudaMallocPitch(T** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  void* p = nullptr;
  const cudaError_t e = cudaMallocPitch(&p, pitch, width, height);
  if (ptr != nullptr) *ptr = static_cast<T*>(p);
  return e;
}
template <class T>
cudaError_t cudaHostAlloc(T** ptr, std::size_t size, unsigned flags) {
  void* p = nullptr;
  const cudaError_t e = cudaHostAlloc(&p, size, flags);
  if (ptr != nullptr) *ptr = static_cast<T*>(p);
  return e;
}
template <class T>
cudaError_t cudaMallocManaged(T** ptr, std::size_t size, unsigned flags = cudaMemAttachGlobal) {
  void* p = nullptr;
  const cudaError_t e = cudaMallocManaged(&p, size, flags);
  if (ptr != nullptr) *ptr = static_cast<T*>(p);
  return e;
}
template <class T>
cudaError_t cudaMallocHost(T** ptr, std::size_t size) {
  void* p = nullptr;
  const cudaError_t e = cudaMallocHost(&p, size);
  if (ptr != nullptr) *ptr = static_cast<T*>(p);
  return e;
}
/// Copies `height` rows of `width` bytes; rows start every dpitch (spitch) bytes.
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind);

// --- Streams and events (synchronous: see the top of this file).
constexpr unsigned cudaStreamDefault = 0, cudaStreamNonBlocking = 1;
constexpr unsigned cudaEventDefault = 0, cudaEventBlockingSync = 1, cudaEventDisableTiming = 2;
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t count, cudaStream_t stream = nullptr);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
/// Makes `stream` wait for `event`: nothing to wait for, every operation has finished.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags = 0);
/// Milliseconds between two recorded events (CPU time here).
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// --- __constant__ and __device__ variables: ordinary globals here, copied by reference.
template <class T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, std::size_t count,
                               std::size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return cudasim::detail::fail(cudaErrorInvalidMemcpyDirection,
                                 "cudaMemcpyToSymbol: kind " +
                                     std::to_string(static_cast<int>(kind)) +
                                     " is not cudaMemcpyHostToDevice, DeviceToDevice or Default");
  }
  if (offset > sizeof(T) || count > sizeof(T) - offset || (count > 0 && src == nullptr)) {
    return cudasim::detail::fail(cudaErrorInvalidValue,
                                 cudasim::detail::symbol_range("cudaMemcpyToSymbol", offset, count,
                                                               sizeof(T), src == nullptr));
  }
  if (count > 0) std::memcpy(reinterpret_cast<char*>(&symbol) + offset, src, count);
  return cudaSuccess;
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count,
                                 std::size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return cudasim::detail::fail(cudaErrorInvalidMemcpyDirection,
                                 "cudaMemcpyFromSymbol: kind " +
                                     std::to_string(static_cast<int>(kind)) +
                                     " is not cudaMemcpyDeviceToHost, DeviceToDevice or Default");
  }
  if (offset > sizeof(T) || count > sizeof(T) - offset || (count > 0 && dst == nullptr)) {
    return cudasim::detail::fail(
        cudaErrorInvalidValue, cudasim::detail::symbol_range("cudaMemcpyFromSymbol", offset, count,
                                                             sizeof(T), dst == nullptr));
  }
  if (count > 0) std::memcpy(dst, reinterpret_cast<const char*>(&symbol) + offset, count);
  return cudaSuccess;
}

/// The subset of CUDA's cudaDeviceProp that the layer fills in (field names are CUDA's).
struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;  // 48 KiB: the most dynamic + static __shared__ per block
  std::size_t sharedMemPerMultiprocessor;
  std::size_t totalConstMem;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int maxThreadsPerMultiProcessor;
  int multiProcessorCount;  // the worker OS threads that run blocks
  int regsPerMultiprocessor;
  int maxBlocksPerMultiProcessor;
  int major, minor;     // compute capability 8.0, whose limits the layer checks
  int clockRate;        // kHz: the host's nominal clock is not known, 1 GHz
  int memoryClockRate;  // kHz
  int memoryBusWidth;
  int l2CacheSize;
  int computeMode;  // cudaComputeModeDefault
  int integrated;   // 1: the device is the host (its memory is the host's)
  int canMapHostMemory;
  int concurrentKernels;  // 0: launches run one after the other
  int asyncEngineCount;   // 0: copies do not overlap kernels
  int deviceOverlap;
  int kernelExecTimeoutEnabled;
  int ECCEnabled;
  int pciBusID, pciDeviceID, pciDomainID;
  int unifiedAddressing;
  int managedMemory;
  int concurrentManagedAccess;
  int pageableMemoryAccess;
  int cooperativeLaunch;  // 0: no grid-wide sync
  std::size_t memPitch;
  std::size_t textureAlignment;
};
/// Fills *prop with the pretend device: "cudasim (CPU execution layer)", compute capability
/// 8.0 limits (1024 threads a block, grid (2^31-1, 65535, 65535), 48 KiB shared memory a
/// block, warps of 32), one multiprocessor per worker thread, the host's memory as global memory.
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
/// One property of the pretend device, the same as in cudaGetDeviceProperties (compute mode,
/// compute capability, multiprocessor count, clock rate, integrated, limits, ...). An attribute
/// it does not describe gives cudaErrorInvalidValue, and last_error_detail() names it.
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
