// The runtime API beyond malloc/memcpy: streams (synchronous on the CPU layer), events,
// managed and pinned memory, __constant__ / __device__ variables, device properties,
// cudaMemsetAsync and cudaMemcpy2D.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"

using andrea::cuda::DeviceBuffer;

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
  ANDREA_CUDA_CHECK(cudaStreamCreate(&stream));
  const std::vector<int> host{1, 2, 3, 4, 5};
  std::vector<int> back(5, 0);
  DeviceBuffer<int> d(5);
  ANDREA_CUDA_CHECK(cudaMemcpyAsync(d.get(), host.data(), 5 * sizeof(int), cudaMemcpyHostToDevice,
                                    stream));
  add_one<<<1, 32, 0, stream>>>(d.get(), 5);
  ANDREA_CUDA_CHECK(cudaGetLastError());
  ANDREA_CUDA_CHECK(cudaMemcpyAsync(back.data(), d.get(), 5 * sizeof(int), cudaMemcpyDeviceToHost,
                                    stream));
  ANDREA_CUDA_CHECK(cudaStreamSynchronize(stream));
  ANDREA_CUDA_CHECK(cudaStreamDestroy(stream));
  EXPECT_EQ(back, (std::vector<int>{2, 3, 4, 5, 6}));
}

TEST(Events, ElapsedTimeBetweenTwoRecords) {
  cudaEvent_t start = nullptr, stop = nullptr;
  ANDREA_CUDA_CHECK(cudaEventCreate(&start));
  ANDREA_CUDA_CHECK(cudaEventCreate(&stop));
  DeviceBuffer<int> d(std::vector<int>(4096, 0));
  ANDREA_CUDA_CHECK(cudaEventRecord(start));
  for (int r = 0; r < 3; ++r) add_one<<<16, 256>>>(d.get(), 4096);
  ANDREA_CUDA_CHECK(cudaEventRecord(stop));
  ANDREA_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = -1.0f;
  ANDREA_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT_GE(ms, 0.0f);
  EXPECT_LT(ms, 60'000.0f);
  EXPECT_EQ(d.to_host(), std::vector<int>(4096, 3));
  ANDREA_CUDA_CHECK(cudaEventDestroy(start));
  ANDREA_CUDA_CHECK(cudaEventDestroy(stop));
}

TEST(ManagedMemory, HostAndKernelShareIt) {
  int* x = nullptr;
  ANDREA_CUDA_CHECK(cudaMallocManaged(&x, 8 * sizeof(int)));
  for (int i = 0; i < 8; ++i) x[i] = 10 * i;
  add_one<<<1, 32>>>(x, 8);
  ANDREA_CUDA_CHECK_LAUNCH();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(x[i], 10 * i + 1);
  ANDREA_CUDA_CHECK(cudaFree(x));
}

TEST(PinnedMemory, IsACopySourceAndDestination) {
  int* pinned = nullptr;
  ANDREA_CUDA_CHECK(cudaMallocHost(&pinned, 4 * sizeof(int)));
  for (int i = 0; i < 4; ++i) pinned[i] = i * i;
  DeviceBuffer<int> d(4);
  ANDREA_CUDA_CHECK(cudaMemcpy(d.get(), pinned, 4 * sizeof(int), cudaMemcpyHostToDevice));
  add_one<<<1, 32>>>(d.get(), 4);
  ANDREA_CUDA_CHECK_LAUNCH();
  ANDREA_CUDA_CHECK(cudaMemcpy(pinned, d.get(), 4 * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::vector<int>(pinned, pinned + 4), (std::vector<int>{1, 2, 5, 10}));
  ANDREA_CUDA_CHECK(cudaFreeHost(pinned));
}

TEST(Symbols, ConstantAndDeviceVariables) {
  const float coefficients[4] = {2.0f, 0.5f, 0.0f, 0.0f};
  ANDREA_CUDA_CHECK(cudaMemcpyToSymbol(kCoefficients, coefficients, sizeof coefficients));
  const unsigned long long zero = 0;
  ANDREA_CUDA_CHECK(cudaMemcpyToSymbol(g_calls, &zero, sizeof zero));
  DeviceBuffer<float> d(std::vector<float>{1.0f, 2.0f, 3.0f});
  affine<<<2, 64>>>(d.get(), 3);
  ANDREA_CUDA_CHECK_LAUNCH();
  EXPECT_EQ(d.to_host(), (std::vector<float>{2.5f, 4.5f, 6.5f}));
  unsigned long long calls = 0;
  ANDREA_CUDA_CHECK(cudaMemcpyFromSymbol(&calls, g_calls, sizeof calls));
  EXPECT_EQ(calls, 128u);  // every thread of 2 blocks of 64
  float second = 0.0f;
  ANDREA_CUDA_CHECK(cudaMemcpyFromSymbol(&second, kCoefficients, sizeof second, sizeof(float)));
  EXPECT_EQ(second, 0.5f);
  EXPECT_EQ(cudaMemcpyToSymbol(kCoefficients, coefficients, sizeof coefficients, sizeof(float)),
            cudaErrorInvalidValue);  // past the end of the symbol
  cudaGetLastError();
}

TEST(DeviceProperties, DescribeTheDevice) {
  cudaDeviceProp prop{};
  ANDREA_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
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

TEST(Memset, AsyncSetsEveryByte) {
  DeviceBuffer<int> d(6);
  ANDREA_CUDA_CHECK(cudaMemsetAsync(d.get(), 0x01, 6 * sizeof(int)));
  ANDREA_CUDA_CHECK(cudaMemsetAsync(d.get() + 4, 0, 2 * sizeof(int), nullptr));
  ANDREA_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(d.to_host(), (std::vector<int>{0x01010101, 0x01010101, 0x01010101, 0x01010101, 0, 0}));
}

TEST(Memcpy2D, CopiesAWindowOfAPitchedMatrix) {
  // Host: 3 rows of 8 ints. Copy columns 2-5 of each row into a compact 3 x 4 device matrix.
  std::vector<int> host(3 * 8);
  for (int i = 0; i < 24; ++i) host[i] = i;
  DeviceBuffer<int> d(12);
  ANDREA_CUDA_CHECK(cudaMemcpy2D(d.get(), 4 * sizeof(int), host.data() + 2, 8 * sizeof(int),
                                 4 * sizeof(int), 3, cudaMemcpyHostToDevice));
  EXPECT_EQ(d.to_host(), (std::vector<int>{2, 3, 4, 5, 10, 11, 12, 13, 18, 19, 20, 21}));
  std::vector<int> back(3 * 6, -1);  // back into rows of 6, columns 1-4
  ANDREA_CUDA_CHECK(cudaMemcpy2D(back.data() + 1, 6 * sizeof(int), d.get(), 4 * sizeof(int),
                                 4 * sizeof(int), 3, cudaMemcpyDeviceToHost));
  EXPECT_EQ(back, (std::vector<int>{-1, 2, 3, 4, 5, -1, -1, 10, 11, 12, 13, -1,
                                    -1, 18, 19, 20, 21, -1}));
  EXPECT_EQ(cudaMemcpy2D(d.get(), 2 * sizeof(int), host.data(), 8 * sizeof(int), 4 * sizeof(int),
                         3, cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue);  // width larger than the destination pitch
  cudaGetLastError();
}

}  // namespace
