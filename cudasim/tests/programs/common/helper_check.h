// helper_check.h: the checkCudaErrors(...) helpers that CUDA's sample programs share, in the
// form they take there (a header on the -I path, found by an angled include; it tests the
// guards of the runtime's headers before it uses their types). Used by several programs here.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || !defined(CUDART_VERSION)
#error "helper_check.h needs <cuda_runtime.h> (its guards and CUDART_VERSION)"
#endif

#ifdef __DRIVER_TYPES_H__
static const char* cudaErrorEnumName(cudaError_t error) { return cudaGetErrorName(error); }
#endif

/// Exits with a message naming the call, its file and line, and CUDA's name for the error.
template <typename T>
void check(T result, const char* call, const char* file, int line) {
  if (result != cudaSuccess) {
    std::fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\": %s\n", file, line,
                 static_cast<int>(result), cudaErrorEnumName(result), call,
                 cudaGetErrorString(result));
    std::exit(EXIT_FAILURE);
  }
}
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

/// After a launch: exits if the launch, or the kernel while it ran, failed.
inline void lastCudaError(const char* message, const char* file, int line) {
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) {
    std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", file, line, message, cudaGetErrorString(error),
                 cudaErrorEnumName(error));
    std::exit(EXIT_FAILURE);
  }
}
#define getLastCudaError(msg) lastCudaError((msg), __FILE__, __LINE__)

/// CUDA cores per multiprocessor for a compute capability (0 if unknown).
inline int coresPerSM(int major, int minor) {
  const struct {
    int sm, cores;
  } table[] = {{0x60, 64},  {0x61, 128}, {0x70, 64},  {0x75, 64},  {0x80, 64},
               {0x86, 128}, {0x89, 128}, {0x90, 128}, {0xa0, 128}, {0xc0, 128}};
  for (const auto& row : table) {
    if (row.sm == ((major << 4) + minor)) return row.cores;
  }
  return 0;
}

/// Picks device 0 after checking that it can run kernels, and prints what it is.
inline int findCudaDevice() {
  int count = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  if (count == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    std::exit(EXIT_FAILURE);
  }
  int mode = -1, major = 0, minor = 0, sms = 0, clock_khz = 0, integrated = -1;
  checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
  checkCudaErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  checkCudaErrors(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  checkCudaErrors(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  checkCudaErrors(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0));
  if (mode == cudaComputeModeProhibited || major < 1 || sms < 1 || clock_khz < 1 ||
      (integrated != 0 && integrated != 1)) {
    std::fprintf(stderr, "device 0 cannot run kernels (mode %d, sm %d.%d, %d SMs)\n", mode, major,
                 minor, sms);
    std::exit(EXIT_FAILURE);
  }
  checkCudaErrors(cudaSetDevice(0));
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != major || prop.minor != minor || prop.multiProcessorCount != sms) {
    std::fprintf(stderr, "cudaGetDeviceProperties and cudaDeviceGetAttribute disagree\n");
    std::exit(EXIT_FAILURE);
  }
  std::printf("GPU Device 0: \"%s\" with compute capability %d.%d, %d SMs\n", prop.name, major,
              minor, sms);
  return 0;
}
