// The runtime API on host memory, and the per-host-thread error state.
#include "cudasim/api.hpp"

#include "cudasim/launch.hpp"
#include "cudasim/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
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

// The last launch failure that the program has not asked about: printed on stderr when the
// program ends (its destructor), so that a program that ignores CUDA's errors and fails its
// own check still says why. Shared by the host threads (a launch may fail on any).
struct Unseen {
  std::mutex m;
  cudaError_t error = cudaSuccess;
  std::string detail;
  void note(cudaError_t e, const std::string& d) {
    std::lock_guard lock(m);
    error = e;
    detail = d;
  }
  void seen(cudaError_t e) {
    if (e == cudaSuccess) return;
    std::lock_guard lock(m);
    error = cudaSuccess;
  }
  ~Unseen() {
    if (error == cudaSuccess) return;
    std::fprintf(stderr,
                 "cudasim: a kernel launch failed and the program never asked "
                 "(cudaGetLastError would have returned %s: %s): %s\n",
                 cudaGetErrorName(error), cudaGetErrorString(error), detail.c_str());
  }
};
Unseen g_unseen;

}  // namespace

std::string last_error_detail() { return t_detail; }

namespace detail {
cudaError_t fail(cudaError_t error, std::string detail) {
  t_last = error;
  t_detail = std::move(detail);
  return error;
}
std::string symbol_range(const char* call, std::size_t offset, std::size_t count,
                         std::size_t symbol_bytes, bool null_pointer) {
  if (null_pointer && offset <= symbol_bytes && count <= symbol_bytes - offset) {
    return std::string(call) + ": the host pointer is null";
  }
  return std::string(call) + ": offset " + std::to_string(offset) + " + count " +
         std::to_string(count) + " bytes is past the symbol's " + std::to_string(symbol_bytes) +
         " bytes";
}
void fail_launch(std::string detail, cudaError_t error) {
  fail_to_launch(error, std::move(detail));
  t_pending = error;
}
void fail_to_launch(cudaError_t error, std::string detail) {
  note_launch_failure(detail);
  g_unseen.note(error, detail);
  fail(error, std::move(detail));
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
  cudasim::detail::note_written(dst, count);  // initcheck (cudasim/tools); not device: nothing
  return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, std::size_t count) {
  if (count == 0) return cudaSuccess;
  if (!cudasim::on_device(ptr, count)) return cudasim::outside("cudaMemset", "destination");
  std::memset(ptr, value, count);
  cudasim::detail::note_written(ptr, count);  // initcheck: cudasim/tools
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  const cudaError_t error = std::exchange(cudasim::t_pending, cudaSuccess);
  cudasim::g_unseen.seen(error);
  return error;
}

cudaError_t cudaGetLastError() {
  cudasim::t_pending = cudaSuccess;
  const cudaError_t error = std::exchange(cudasim::t_last, cudaSuccess);
  cudasim::g_unseen.seen(error);
  return error;
}

cudaError_t cudaPeekAtLastError() {
  cudasim::g_unseen.seen(cudasim::t_last);
  return cudasim::t_last;
}

// cudaGetErrorName, cudaGetErrorString: errors.cpp.

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

cudaError_t cudaDeviceReset() { return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr)
    return fail(cudaErrorInvalidValue, "cudaDriverGetVersion: version is null");
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr)
    return fail(cudaErrorInvalidValue, "cudaRuntimeGetVersion: version is null");
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned flags) {
  if (flags > 31) return fail(cudaErrorInvalidValue, "cudaSetDeviceFlags: unknown flags");
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
  if (free == nullptr || total == nullptr) {
    return fail(cudaErrorInvalidValue, "cudaMemGetInfo: null pointer");
  }
  const long page = sysconf(_SC_PAGESIZE);
  *free = static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * page;
  *total = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * page;
  return cudaSuccess;
}

// --- More allocation: the same path as cudaMalloc (all memory is host memory here).
namespace {
constexpr std::size_t kMaxPitch = 2147483647;  // cudaDeviceProp::memPitch, cudaDevAttrMaxPitch
// Managed and pinned memory: the host writes it directly, which initcheck (cudasim/tools)
// cannot see, so every byte counts as written.
cudaError_t malloc_host_visible(void** ptr, std::size_t size) {
  const cudaError_t error = cudaMalloc(ptr, size);
  if (error == cudaSuccess) cudasim::detail::note_written(*ptr, size);
  return error;
}
}  // namespace

cudaError_t cudaMallocManaged(void** ptr, std::size_t size, unsigned flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
    return fail(cudaErrorInvalidValue,
                "cudaMallocManaged: flags must be cudaMemAttachGlobal or cudaMemAttachHost");
  }
  return malloc_host_visible(ptr, size);
}
cudaError_t cudaMallocHost(void** ptr, std::size_t size) { return malloc_host_visible(ptr, size); }
cudaError_t cudaFreeHost(void* ptr) { return cudaFree(ptr); }
cudaError_t cudaHostAlloc(void** ptr, std::size_t size, unsigned flags) {
  if (flags > 7) return fail(cudaErrorInvalidValue, "cudaHostAlloc: unknown flags");
  return malloc_host_visible(ptr, size);
}
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned flags) {
  if (device == nullptr || flags != 0) {
    return fail(cudaErrorInvalidValue, "cudaHostGetDevicePointer: device is null or flags not 0");
  }
  *device = host;
  return cudaSuccess;
}
cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  if (pitch == nullptr) return fail(cudaErrorInvalidValue, "cudaMallocPitch: pitch is null");
  *pitch = (width + 255) / 256 * 256;
  return cudaMalloc(ptr, *pitch * height);
}

cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) {
    return fail(
        cudaErrorInvalidMemcpyDirection,
        "cudaMemcpy2D: kind " + std::to_string(static_cast<int>(kind)) + " is no cudaMemcpyKind");
  }
  // "cudaMemcpy2D() returns an error if dpitch or spitch exceeds the maximum allowed" (CUDA's
  // documentation): the device's memPitch, cudaDevAttrMaxPitch.
  if (const std::size_t most = kMaxPitch; dpitch > most || spitch > most) {
    return fail(cudaErrorInvalidPitchValue,
                "cudaMemcpy2D: a pitch is larger than the largest allowed, " +
                    std::to_string(most) + " bytes (dpitch " + std::to_string(dpitch) +
                    ", spitch " + std::to_string(spitch) + ")");
  }
  if (width > dpitch || width > spitch) {
    return fail(cudaErrorInvalidPitchValue, "cudaMemcpy2D: width " + std::to_string(width) +
                                                " is larger than a pitch (dpitch " +
                                                std::to_string(dpitch) + ", spitch " +
                                                std::to_string(spitch) + ")");
  }
  if (width == 0 || height == 0) return cudaSuccess;
  // Check the whole ranges first, so that nothing is written when one is outside.
  const std::size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
  const bool to_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool from_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (to_device && !cudasim::on_device(dst, dspan)) {
    return cudasim::outside("cudaMemcpy2D", "destination");
  }
  if (from_device && !cudasim::on_device(src, sspan)) {
    return cudasim::outside("cudaMemcpy2D", "source");
  }
  for (std::size_t r = 0; r < height; ++r) {
    const cudaError_t e = cudaMemcpy(static_cast<char*>(dst) + r * dpitch,
                                     static_cast<const char*>(src) + r * spitch, width, kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

// --- Streams and events. A stream is only a handle: every operation completes at once.
namespace cudasim {
namespace {
struct Handles {
  std::mutex mutex;
  std::set<const void*> streams, events;
};
Handles& handles() {
  static auto* h = new Handles;
  return *h;
}
bool known(const std::set<const void*>& set, const void* p) {
  std::lock_guard lock(handles().mutex);
  return set.count(p) != 0;
}
}  // namespace
namespace detail {
bool stream_valid(cudaStream_t stream) {
  return stream == nullptr || known(handles().streams, stream);
}
}  // namespace detail
}  // namespace cudasim

struct CUstream_st {
  unsigned flags;
};
struct CUevent_st {
  unsigned flags;
  bool recorded = false;
  std::chrono::steady_clock::time_point when{};
};

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
  if (stream == nullptr) return fail(cudaErrorInvalidValue, "cudaStreamCreate: stream is null");
  *stream = new CUstream_st{flags};
  std::lock_guard lock(cudasim::handles().mutex);
  cudasim::handles().streams.insert(*stream);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  {
    std::lock_guard lock(cudasim::handles().mutex);
    if (stream == nullptr || cudasim::handles().streams.erase(stream) == 0) {
      return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: not a live stream");
    }
  }
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!cudasim::detail::stream_valid(stream)) {
    return fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize: not a live stream");
  }
  return cudaDeviceSynchronize();
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (!cudasim::detail::stream_valid(stream)) {
    return fail(cudaErrorInvalidResourceHandle, "cudaMemcpyAsync: not a live stream");
  }
  return cudaMemcpy(dst, src, count, kind);
}
cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t count, cudaStream_t stream) {
  if (!cudasim::detail::stream_valid(stream)) {
    return fail(cudaErrorInvalidResourceHandle, "cudaMemsetAsync: not a live stream");
  }
  return cudaMemset(ptr, value, count);
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
  if (event == nullptr) return fail(cudaErrorInvalidValue, "cudaEventCreate: event is null");
  *event = new CUevent_st{flags};
  std::lock_guard lock(cudasim::handles().mutex);
  cudasim::handles().events.insert(*event);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  {
    std::lock_guard lock(cudasim::handles().mutex);
    if (event == nullptr || cudasim::handles().events.erase(event) == 0) {
      return fail(cudaErrorInvalidResourceHandle, "cudaEventDestroy: not a live event");
    }
  }
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (event == nullptr || !cudasim::known(cudasim::handles().events, event)) {
    return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: not a live event");
  }
  if (!cudasim::detail::stream_valid(stream)) {
    return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: not a live stream");
  }
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (event == nullptr || !cudasim::known(cudasim::handles().events, event)) {
    return fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: not a live event");
  }
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
  if (!cudasim::detail::stream_valid(stream)) {
    return fail(cudaErrorInvalidResourceHandle, "cudaStreamWaitEvent: not a live stream");
  }
  if (flags != 0) return fail(cudaErrorInvalidValue, "cudaStreamWaitEvent: flags must be 0");
  return cudaEventSynchronize(event);
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return fail(cudaErrorInvalidValue, "cudaEventElapsedTime: ms is null");
  for (cudaEvent_t e : {start, end}) {
    if (e == nullptr || !cudasim::known(cudasim::handles().events, e)) {
      return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: not a live event");
    }
    if ((e->flags & cudaEventDisableTiming) != 0) {
      return fail(cudaErrorInvalidResourceHandle,
                  "cudaEventElapsedTime: event created with cudaEventDisableTiming");
    }
    if (!e->recorded) {
      return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: event never recorded");
    }
  }
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties: prop is null");
  if (device != 0) {
    return fail(cudaErrorInvalidDevice, "cudaGetDeviceProperties: the simulator has device 0 only");
  }
  *prop = cudaDeviceProp{};
  std::strncpy(prop->name, "cudasim (CPU execution layer)", sizeof prop->name - 1);
  prop->totalGlobalMem = std::size_t{16} << 30;
  prop->sharedMemPerBlock = cudasim::kSharedMemoryPerBlock;
  prop->sharedMemPerMultiprocessor = 164 * 1024;
  prop->totalConstMem = 64 * 1024;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->multiProcessorCount = static_cast<int>(cudasim::worker_threads());
  prop->regsPerMultiprocessor = 65536;
  prop->maxBlocksPerMultiProcessor = 32;
  prop->major = 8;
  prop->minor = 0;
  prop->clockRate = 1000 * 1000;
  prop->memoryClockRate = 1000 * 1000;
  prop->memoryBusWidth = 64;
  prop->l2CacheSize = 40 * 1024 * 1024;
  prop->computeMode = cudaComputeModeDefault;
  prop->integrated = 1;
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 0;
  prop->asyncEngineCount = 0;
  prop->deviceOverlap = 0;
  prop->kernelExecTimeoutEnabled = 0;
  prop->ECCEnabled = 0;
  prop->unifiedAddressing = 1;
  prop->managedMemory = 1;
  prop->concurrentManagedAccess = 1;
  prop->pageableMemoryAccess = 1;
  prop->cooperativeLaunch = 0;
  prop->memPitch = kMaxPitch;
  prop->textureAlignment = 512;
  return cudaSuccess;
}

namespace cudasim {
namespace {
// A size in bytes as the int of an attribute: a size over INT_MAX reads INT_MAX.
constexpr int as_int(std::size_t v) {
  return static_cast<int>(std::min<std::size_t>(v, 2147483647));
}

// An attribute that cudaDeviceGetAttribute answers, and how it reads it from the
// cudaDeviceProp of cudaGetDeviceProperties (the two never disagree).
using Properties = const cudaDeviceProp&;
struct DeviceAttribute {
  cudaDeviceAttr attr;
  int (*read)(Properties p);
};

// Every attribute that describes the pretend device; any other is cudaErrorInvalidValue.
constexpr DeviceAttribute kDeviceAttributes[] = {
    {cudaDevAttrMaxThreadsPerBlock, [](Properties p) { return p.maxThreadsPerBlock; }},
    {cudaDevAttrMaxBlockDimX, [](Properties p) { return p.maxThreadsDim[0]; }},
    {cudaDevAttrMaxBlockDimY, [](Properties p) { return p.maxThreadsDim[1]; }},
    {cudaDevAttrMaxBlockDimZ, [](Properties p) { return p.maxThreadsDim[2]; }},
    {cudaDevAttrMaxGridDimX, [](Properties p) { return p.maxGridSize[0]; }},
    {cudaDevAttrMaxGridDimY, [](Properties p) { return p.maxGridSize[1]; }},
    {cudaDevAttrMaxGridDimZ, [](Properties p) { return p.maxGridSize[2]; }},
    {cudaDevAttrMaxSharedMemoryPerBlock, [](Properties p) { return as_int(p.sharedMemPerBlock); }},
    {cudaDevAttrTotalConstantMemory, [](Properties p) { return as_int(p.totalConstMem); }},
    {cudaDevAttrWarpSize, [](Properties p) { return p.warpSize; }},
    {cudaDevAttrMaxPitch, [](Properties p) { return as_int(p.memPitch); }},
    {cudaDevAttrMaxRegistersPerBlock, [](Properties p) { return p.regsPerBlock; }},
    {cudaDevAttrClockRate, [](Properties p) { return p.clockRate; }},
    {cudaDevAttrTextureAlignment, [](Properties p) { return as_int(p.textureAlignment); }},
    {cudaDevAttrGpuOverlap, [](Properties p) { return p.deviceOverlap; }},
    {cudaDevAttrMultiProcessorCount, [](Properties p) { return p.multiProcessorCount; }},
    {cudaDevAttrKernelExecTimeout, [](Properties p) { return p.kernelExecTimeoutEnabled; }},
    {cudaDevAttrIntegrated, [](Properties p) { return p.integrated; }},
    {cudaDevAttrCanMapHostMemory, [](Properties p) { return p.canMapHostMemory; }},
    {cudaDevAttrComputeMode, [](Properties p) { return p.computeMode; }},
    {cudaDevAttrConcurrentKernels, [](Properties p) { return p.concurrentKernels; }},
    {cudaDevAttrEccEnabled, [](Properties p) { return p.ECCEnabled; }},
    {cudaDevAttrPciBusId, [](Properties p) { return p.pciBusID; }},
    {cudaDevAttrPciDeviceId, [](Properties p) { return p.pciDeviceID; }},
    {cudaDevAttrPciDomainId, [](Properties p) { return p.pciDomainID; }},
    {cudaDevAttrMemoryClockRate, [](Properties p) { return p.memoryClockRate; }},
    {cudaDevAttrGlobalMemoryBusWidth, [](Properties p) { return p.memoryBusWidth; }},
    {cudaDevAttrL2CacheSize, [](Properties p) { return p.l2CacheSize; }},
    {cudaDevAttrMaxThreadsPerMultiProcessor,
     [](Properties p) { return p.maxThreadsPerMultiProcessor; }},
    {cudaDevAttrAsyncEngineCount, [](Properties p) { return p.asyncEngineCount; }},
    {cudaDevAttrUnifiedAddressing, [](Properties p) { return p.unifiedAddressing; }},
    {cudaDevAttrComputeCapabilityMajor, [](Properties p) { return p.major; }},
    {cudaDevAttrComputeCapabilityMinor, [](Properties p) { return p.minor; }},
    {cudaDevAttrMaxSharedMemoryPerMultiprocessor,
     [](Properties p) { return as_int(p.sharedMemPerMultiprocessor); }},
    {cudaDevAttrMaxRegistersPerMultiprocessor,
     [](Properties p) { return p.regsPerMultiprocessor; }},
    {cudaDevAttrManagedMemory, [](Properties p) { return p.managedMemory; }},
    {cudaDevAttrConcurrentManagedAccess, [](Properties p) { return p.concurrentManagedAccess; }},
    {cudaDevAttrPageableMemoryAccess, [](Properties p) { return p.pageableMemoryAccess; }},
    {cudaDevAttrCooperativeLaunch, [](Properties p) { return p.cooperativeLaunch; }},
    {cudaDevAttrMaxSharedMemoryPerBlockOptin,
     [](Properties p) { return as_int(p.sharedMemPerBlock); }},
    {cudaDevAttrMaxBlocksPerMultiprocessor,
     [](Properties p) { return p.maxBlocksPerMultiProcessor; }},
};
}  // namespace
}  // namespace cudasim

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (value == nullptr) return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: value is null");
  cudaDeviceProp p;
  if (const cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return e;
  const auto* row =
      std::find_if(std::begin(cudasim::kDeviceAttributes), std::end(cudasim::kDeviceAttributes),
                   [attr](const auto& a) { return a.attr == attr; });
  if (row == std::end(cudasim::kDeviceAttributes)) {
    return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: attribute " +
                                           std::to_string(static_cast<int>(attr)) +
                                           " does not describe the pretend device (cudasim); "
                                           "see cudasim/README.md");
  }
  *value = row->read(p);
  return cudaSuccess;
}
