// The standard launch, kernel<<<grid, block[, shared_bytes[, stream]]>>>(args...): template
// arguments deduced from the call or given, overloaded kernels, argument conversions.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace {

template <class T>
__global__ void copy_kernel(const T* in, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Overloads: the launch picks one by the argument types, as a call would.
__global__ void scale(float* x, int n, float a) {
  const int i = threadIdx.x;
  if (i < n) x[i] *= a;
}
__global__ void scale(int* x, int n, int a) {
  const int i = threadIdx.x;
  if (i < n) x[i] = x[i] * a + 1;  // +1: tells this overload's result from the float one's
}

template <int kFactor, class T>
__global__ void times(T* x, int n) {
  const int i = threadIdx.x;
  if (i < n) x[i] *= kFactor;
}

// int64 parameter, int argument: converted as in a call.
__global__ void fill_index(std::int64_t* out, std::int64_t offset) {
  out[threadIdx.x] = offset + threadIdx.x;
}

TEST(ChevronLaunch, DeducesTheTemplateArgumentFromFloat4Pointers) {
  const int n = 100;
  std::vector<float> host(4 * n);
  for (int i = 0; i < 4 * n; ++i) host[i] = 0.5f * static_cast<float>(i);
  DeviceBuffer<float> in(host), out(4 * n);
  copy_kernel<<<2, 64>>>(reinterpret_cast<const float4*>(in.get()),
                         reinterpret_cast<float4*>(out.get()), n);
  CHECK_LAUNCH();
  EXPECT_EQ(out.to_host(), host);
}

TEST(ChevronLaunch, ExplicitTemplateArguments) {
  DeviceBuffer<int> x(std::vector<int>{1, 2, 3, 4, 5});
  times<3><<<1, 32>>>(x.get(), 5);  // T deduced, kFactor given
  times<2, int><<<1, 32>>>(x.get(), 4);
  CHECK_LAUNCH();
  EXPECT_EQ(x.to_host(), (std::vector<int>{6, 12, 18, 24, 15}));
}

TEST(ChevronLaunch, OverloadedKernelsArePickedByArgumentType) {
  DeviceBuffer<float> f(std::vector<float>{1.0f, 2.0f, 3.0f});
  DeviceBuffer<int> i(std::vector<int>{1, 2, 3});
  scale<<<1, 32>>>(f.get(), 3, 2.5f);
  scale<<<1, 32>>>(i.get(), 3, 10);
  CHECK_LAUNCH();
  EXPECT_EQ(f.to_host(), (std::vector<float>{2.5f, 5.0f, 7.5f}));
  EXPECT_EQ(i.to_host(), (std::vector<int>{11, 21, 31}));
}

TEST(ChevronLaunch, ArgumentsAreConvertedToTheParameterTypes) {
  DeviceBuffer<std::int64_t> out(4);
  const int offset = 1 << 30;
  fill_index<<<dim3(1, 1, 1), dim3(4)>>>(out.get(), offset * 4LL);
  CHECK_LAUNCH();
  const std::int64_t base = std::int64_t{1} << 32;
  EXPECT_EQ(out.to_host(), (std::vector<std::int64_t>{base, base + 1, base + 2, base + 3}));
}

TEST(ChevronLaunch, TakesSharedBytesAndAStream) {
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  DeviceBuffer<float> f(std::vector<float>{1.0f, 2.0f});
  scale<<<1, 32, 0, stream>>>(f.get(), 2, 4.0f);
  scale<<<1, 32, 64>>>(f.get(), 2, 0.5f);
  scale<<<1, 32, 0, 0>>>(f.get(), 2, 3.0f);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  EXPECT_EQ(f.to_host(), (std::vector<float>{6.0f, 12.0f}));
}

#if !defined(__CUDACC__)
TEST(ChevronLaunch, TooMuchDynamicSharedMemoryIsRefused) {
  DeviceBuffer<float> f(std::vector<float>{1.0f});
  scale<<<1, 32, 48 * 1024 + 1>>>(f.get(), 1, 2.0f);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_NE(cudasim::last_error_detail().find("49153 bytes of dynamic shared memory"),
            std::string::npos)
      << cudasim::last_error_detail();
  EXPECT_EQ(f.to_host(), std::vector<float>{1.0f});  // the kernel did not run
}

TEST(ChevronLaunch, ADestroyedStreamIsRefused) {
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  DeviceBuffer<float> f(std::vector<float>{1.0f});
  scale<<<1, 32, 0, stream>>>(f.get(), 1, 2.0f);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
}
#endif

}  // namespace
