// The runtime API beyond malloc/memcpy: streams (synchronous on the CPU layer), events,
// managed and pinned memory, __constant__ / __device__ variables, device properties,
// cudaMemsetAsync and cudaMemcpy2D.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

__constant__ float kCoefficients[4];
__device__ unsigned long long g_calls;

namespace {

__global__ void affine(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = kCoefficients[0] * x[i] + kCoefficients[1];
  atomicAdd(&g_calls, 1ull);
}

__global__ void add_one(int* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

TEST(Streams, CopyLaunchCopyOnAStream) {
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  const std::vector<int> host{1, 2, 3, 4, 5};
  std::vector<int> back(5, 0);
  DeviceBuffer<int> d(5);
  CHECK_CUDA(
      cudaMemcpyAsync(d.get(), host.data(), 5 * sizeof(int), cudaMemcpyHostToDevice, stream));
  add_one<<<1, 32, 0, stream>>>(d.get(), 5);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(
      cudaMemcpyAsync(back.data(), d.get(), 5 * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  EXPECT_EQ(back, (std::vector<int>{2, 3, 4, 5, 6}));
}

TEST(Events, ElapsedTimeBetweenTwoRecords) {
  cudaEvent_t start = nullptr, stop = nullptr;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  DeviceBuffer<int> d(std::vector<int>(4096, 0));
  CHECK_CUDA(cudaEventRecord(start));
  for (int r = 0; r < 3; ++r) add_one<<<16, 256>>>(d.get(), 4096);
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = -1.0f;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  EXPECT_GE(ms, 0.0f);
  EXPECT_LT(ms, 60'000.0f);
  EXPECT_EQ(d.to_host(), std::vector<int>(4096, 3));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
}

TEST(ManagedMemory, HostAndKernelShareIt) {
  int* x = nullptr;
  CHECK_CUDA(cudaMallocManaged(&x, 8 * sizeof(int)));
  for (int i = 0; i < 8; ++i) x[i] = 10 * i;
  add_one<<<1, 32>>>(x, 8);
  CHECK_LAUNCH();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(x[i], 10 * i + 1);
  CHECK_CUDA(cudaFree(x));
}

TEST(PinnedMemory, IsACopySourceAndDestination) {
  int* pinned = nullptr;
  CHECK_CUDA(cudaMallocHost(&pinned, 4 * sizeof(int)));
  for (int i = 0; i < 4; ++i) pinned[i] = i * i;
  DeviceBuffer<int> d(4);
  CHECK_CUDA(cudaMemcpy(d.get(), pinned, 4 * sizeof(int), cudaMemcpyHostToDevice));
  add_one<<<1, 32>>>(d.get(), 4);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(pinned, d.get(), 4 * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::vector<int>(pinned, pinned + 4), (std::vector<int>{1, 2, 5, 10}));
  CHECK_CUDA(cudaFreeHost(pinned));
}

TEST(Symbols, ConstantAndDeviceVariables) {
  const float coefficients[4] = {2.0f, 0.5f, 0.0f, 0.0f};
  CHECK_CUDA(cudaMemcpyToSymbol(kCoefficients, coefficients, sizeof coefficients));
  const unsigned long long zero = 0;
  CHECK_CUDA(cudaMemcpyToSymbol(g_calls, &zero, sizeof zero));
  DeviceBuffer<float> d(std::vector<float>{1.0f, 2.0f, 3.0f});
  affine<<<2, 64>>>(d.get(), 3);
  CHECK_LAUNCH();
  EXPECT_EQ(d.to_host(), (std::vector<float>{2.5f, 4.5f, 6.5f}));
  unsigned long long calls = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&calls, g_calls, sizeof calls));
  EXPECT_EQ(calls, 128u);  // every thread of 2 blocks of 64
  float second = 0.0f;
  CHECK_CUDA(cudaMemcpyFromSymbol(&second, kCoefficients, sizeof second, sizeof(float)));
  EXPECT_EQ(second, 0.5f);
  // Past the end of the symbol. CUDA documents cudaSuccess, cudaErrorInvalidValue,
  // cudaErrorInvalidSymbol, cudaErrorInvalidMemcpyDirection and cudaErrorNoKernelImageForDevice,
  // without saying which a range past the symbol gives: the layer gives cudaErrorInvalidValue
  // and names the bound; a GPU may give either error that fits a bad range.
  const cudaError_t past =
      cudaMemcpyToSymbol(kCoefficients, coefficients, sizeof coefficients, sizeof(float));
#if defined(__CUDACC__)
  EXPECT_TRUE(past == cudaErrorInvalidValue || past == cudaErrorInvalidSymbol)
      << cudaGetErrorName(past);
#else
  EXPECT_EQ(past, cudaErrorInvalidValue);
  EXPECT_NE(cudasim::last_error_detail().find("offset 4 + count 16 bytes is past the symbol's 16"),
            std::string::npos)
      << cudasim::last_error_detail();
#endif
  (void)cudaGetLastError();
  // A direction the symbol copies do not take: documented as cudaErrorInvalidMemcpyDirection.
  EXPECT_EQ(
      cudaMemcpyToSymbol(kCoefficients, coefficients, sizeof(float), 0, cudaMemcpyDeviceToHost),
      cudaErrorInvalidMemcpyDirection);
  (void)cudaGetLastError();
  EXPECT_EQ(cudaMemcpyFromSymbol(&second, kCoefficients, sizeof second, 0, cudaMemcpyHostToDevice),
            cudaErrorInvalidMemcpyDirection);
  (void)cudaGetLastError();
}

TEST(DeviceProperties, DescribeTheDevice) {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  EXPECT_EQ(prop.warpSize, 32);
  EXPECT_EQ(prop.maxThreadsPerBlock, 1024);
  EXPECT_EQ(prop.sharedMemPerBlock, 48u * 1024u);
  EXPECT_EQ(prop.maxThreadsDim[2], 64);
  EXPECT_GE(prop.multiProcessorCount, 1);
  EXPECT_GE(prop.major, 7);
#if !defined(__CUDACC__)
  EXPECT_EQ(std::string(prop.name), "cudasim (CPU execution layer)");
  EXPECT_EQ(prop.major * 10 + prop.minor, 80);
  EXPECT_EQ(prop.multiProcessorCount, static_cast<int>(cudasim::worker_threads()));
#endif
}

TEST(DeviceProperties, AttributesAgreeWithTheProperties) {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const auto attribute = [](cudaDeviceAttr a) {
    int v = -1;
    CHECK_CUDA(cudaDeviceGetAttribute(&v, a, 0));
    return v;
  };
  EXPECT_EQ(attribute(cudaDevAttrComputeCapabilityMajor), prop.major);
  EXPECT_EQ(attribute(cudaDevAttrComputeCapabilityMinor), prop.minor);
  EXPECT_EQ(attribute(cudaDevAttrMultiProcessorCount), prop.multiProcessorCount);
  EXPECT_EQ(attribute(cudaDevAttrMaxThreadsPerBlock), prop.maxThreadsPerBlock);
  EXPECT_EQ(attribute(cudaDevAttrWarpSize), 32);
  EXPECT_EQ(attribute(cudaDevAttrMaxSharedMemoryPerBlock),
            static_cast<int>(prop.sharedMemPerBlock));
  EXPECT_EQ(attribute(cudaDevAttrMaxBlockDimZ), 64);
  EXPECT_EQ(attribute(cudaDevAttrMaxGridDimX), 2147483647);
  EXPECT_GT(attribute(cudaDevAttrClockRate), 0);
  EXPECT_NE(attribute(cudaDevAttrComputeMode), cudaComputeModeProhibited);
#if !defined(__CUDACC__)
  EXPECT_EQ(attribute(cudaDevAttrIntegrated), 1);  // the pretend device's memory is the host's
  EXPECT_EQ(attribute(cudaDevAttrComputeMode), cudaComputeModeDefault);
  EXPECT_EQ(attribute(cudaDevAttrClockRate), prop.clockRate);
  int v = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture1DWidth, 0), cudaErrorInvalidValue);
  EXPECT_NE(cudasim::last_error_detail().find("attribute 21"), std::string::npos);
  cudaGetLastError();
  EXPECT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1), cudaErrorInvalidDevice);
  cudaGetLastError();
#endif
}

TEST(Errors, EveryCodeHasCudasNameAndWords) {
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorIllegalAddress),
               "an illegal memory access was encountered");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInitializationError), "cudaErrorInitializationError");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorNoKernelImageForDevice),
               "no kernel image is available for execution on the device");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorUnknown), "cudaErrorUnknown");
  EXPECT_STREQ(cudaGetErrorName(static_cast<cudaError_t>(12345)), "unrecognized error code");
  EXPECT_EQ(static_cast<int>(cudaErrorLaunchTimeout), 702);  // CUDA's numbers
  EXPECT_EQ(static_cast<int>(cudaErrorCooperativeLaunchTooLarge), 720);
#if !defined(__CUDACC__)
  for (int code = 0; code < 1000; ++code) {  // each defined code is named after itself
    const std::string name = cudaGetErrorName(static_cast<cudaError_t>(code));
    if (name != "unrecognized error code") {
      EXPECT_EQ(name.rfind("cuda", 0), 0u) << code;
    }
  }
#endif
}

TEST(Versions, TheRuntimeAndDriverAreCuda11OrLater) {
  int runtime = 0, driver = 0;
  CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  EXPECT_EQ(runtime, CUDART_VERSION);
  EXPECT_GE(runtime, 11000);
  // cudaDriverGetVersion: "the latest version of CUDA supported by the driver", 0 with none
  // installed. Since CUDA 11 a driver also runs the newer runtimes of its own major version
  // (minor version compatibility), so a driver older than the runtime is allowed; an older
  // major version would have failed cudaGetDeviceCount (cudaErrorInsufficientDriver) first.
  EXPECT_GT(driver, 0);
  EXPECT_GE(driver / 1000, runtime / 1000)
      << "driver CUDA " << driver << ", runtime CUDA " << runtime;
#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_RUNTIME_API_H__)
  ADD_FAILURE() << "the runtime's include guards are not defined";
#endif
}

TEST(Memset, AsyncSetsEveryByte) {
  DeviceBuffer<int> d(6);
  CHECK_CUDA(cudaMemsetAsync(d.get(), 0x01, 6 * sizeof(int)));
  CHECK_CUDA(cudaMemsetAsync(d.get() + 4, 0, 2 * sizeof(int), nullptr));
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(d.to_host(), (std::vector<int>{0x01010101, 0x01010101, 0x01010101, 0x01010101, 0, 0}));
}

TEST(Memcpy2D, CopiesAWindowOfAPitchedMatrix) {
  // Host: 3 rows of 8 ints. Copy columns 2-5 of each row into a compact 3 x 4 device matrix.
  std::vector<int> host(3 * 8);
  for (int i = 0; i < 24; ++i) host[i] = i;
  DeviceBuffer<int> d(12);
  CHECK_CUDA(cudaMemcpy2D(d.get(), 4 * sizeof(int), host.data() + 2, 8 * sizeof(int),
                                 4 * sizeof(int), 3, cudaMemcpyHostToDevice));
  EXPECT_EQ(d.to_host(), (std::vector<int>{2, 3, 4, 5, 10, 11, 12, 13, 18, 19, 20, 21}));
  std::vector<int> back(3 * 6, -1);  // back into rows of 6, columns 1-4
  CHECK_CUDA(cudaMemcpy2D(back.data() + 1, 6 * sizeof(int), d.get(), 4 * sizeof(int),
                                 4 * sizeof(int), 3, cudaMemcpyDeviceToHost));
  EXPECT_EQ(back,
            (std::vector<int>{-1, 2, 3, 4, 5, -1, -1, 10, 11, 12, 13, -1, -1, 18, 19, 20, 21, -1}));
  // "width must not exceed either dpitch or spitch": CUDA documents cudaErrorInvalidValue and
  // cudaErrorInvalidPitchValue among cudaMemcpy2D's errors without saying which this is; the
  // layer gives cudaErrorInvalidPitchValue, a GPU either.
  const cudaError_t wide = cudaMemcpy2D(d.get(), 2 * sizeof(int), host.data(), 8 * sizeof(int),
                                        4 * sizeof(int), 3, cudaMemcpyHostToDevice);
#if defined(__CUDACC__)
  EXPECT_TRUE(wide == cudaErrorInvalidPitchValue || wide == cudaErrorInvalidValue)
      << cudaGetErrorName(wide);
#else
  EXPECT_EQ(wide, cudaErrorInvalidPitchValue);
  EXPECT_NE(cudasim::last_error_detail().find("width 16 is larger than a pitch (dpitch 8"),
            std::string::npos)
      << cudasim::last_error_detail();
#endif
  (void)cudaGetLastError();
  // "returns an error if dpitch or spitch exceeds the maximum allowed" (cudaDevAttrMaxPitch).
  int max_pitch = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, 0));
  const std::size_t too_wide = static_cast<std::size_t>(max_pitch) + 1;
  const cudaError_t huge = cudaMemcpy2D(d.get(), 4 * sizeof(int), host.data(), too_wide,
                                        4 * sizeof(int), 1, cudaMemcpyHostToDevice);
  EXPECT_TRUE(huge == cudaErrorInvalidPitchValue || huge == cudaErrorInvalidValue)
      << "spitch " << too_wide << " (the largest is " << max_pitch
      << "): " << cudaGetErrorName(huge);
  (void)cudaGetLastError();
}

}  // namespace
