// The runtime API on host memory, launch-configuration errors, atomics, CHECK_CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace {

TEST(Api, MemcpyAndMemsetRoundTrip) {
  std::vector<float> host(1000);
  for (int i = 0; i < 1000; ++i) host[i] = 0.5f * i;
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1000 * sizeof(float)), cudaSuccess);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(d) % 256, 0u);
  float* d2 = nullptr;
  ASSERT_EQ(cudaMalloc(&d2, 1000 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, host.data(), 1000 * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d2, d, 1000 * sizeof(float), cudaMemcpyDeviceToDevice), cudaSuccess);
  std::vector<float> back(1000);
  ASSERT_EQ(cudaMemcpy(back.data(), d2, 1000 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  ASSERT_EQ(cudaMemset(d2 + 10, 0, 20 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), d2, 1000 * sizeof(float), cudaMemcpyDefault), cudaSuccess);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(back[i], i >= 10 && i < 30 ? 0.0f : host[i]) << i;
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(d2), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(Api, NewMemoryIsNaNNotZero) {
  DeviceBuffer<float> d(4);
  for (float v : d.to_host()) EXPECT_TRUE(std::isnan(v));
}

__global__ void add_one(int* x, int n) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < n) x[i] += 1;
}

// What the course's runner does to tell a kernel's work from the host's (launch.hpp): while
// launches are skipped, a launch is counted but runs nothing, a buffer made before reads as
// 0xff bytes, and it gets its bytes back afterwards.
TEST(Api, SkippedLaunchesRunNothingAndHideEarlierBuffers) {
  DeviceBuffer<int> kept(std::vector<int>{1, 2, 3});
  cudasim::take_launch_tally();
  cudasim::set_launches_skipped(true);
  EXPECT_EQ(kept.to_host(), (std::vector<int>{-1, -1, -1}));  // 0xffffffff
  DeviceBuffer<int> made(std::vector<int>{10, 20});
  add_one<<<1, 32>>>(made.get(), 2);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(made.to_host(), (std::vector<int>{10, 20}));  // no block ran
  add_one<<<1, 2048>>>(made.get(), 2);                   // still checked: too many threads
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  cudasim::set_launches_skipped(false);
  EXPECT_EQ(cudasim::take_launch_tally().launches, 2u);
  EXPECT_EQ(kept.to_host(), (std::vector<int>{1, 2, 3}));
  add_one<<<1, 32>>>(kept.get(), 3);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(kept.to_host(), (std::vector<int>{2, 3, 4}));
}

TEST(Api, CopiesOutsideAnAllocationAreRefused) {
  DeviceBuffer<int> d(10);
  std::vector<int> host(11);
  EXPECT_EQ(cudaMemcpy(d.get(), host.data(), 11 * sizeof(int), cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  EXPECT_NE(cudasim::last_error_detail().find("destination range"), std::string::npos);
  EXPECT_EQ(cudaMemcpy(host.data(), d.get() + 1, 10 * sizeof(int), cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(host.data(), 0, 4), cudaErrorInvalidValue);
  int local = 0;
  EXPECT_EQ(cudaFree(&local), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(Api, DeviceCountErrorNamesAndStrings) {
  int count = 0;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorLaunchFailure), "unspecified launch failure");
  EXPECT_STREQ(cudaGetErrorString(cudaSuccess), "no error");
  EXPECT_EQ(static_cast<int>(cudaErrorNoDevice), 100);
}

__global__ void set_flag(int* flag) { *flag = 1; }

struct Config {
  const char* name;
  dim3 grid, block;
};

class LaunchConfig : public ::testing::TestWithParam<Config> {};

TEST_P(LaunchConfig, IsRefusedAndTheKernelDoesNotRun) {
  DeviceBuffer<int> flag(std::vector<int>{0});
  set_flag<<<GetParam().grid, GetParam().block>>>(flag.get());
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);       // cleared
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // a refused launch is not a failed run
  EXPECT_NE(cudasim::last_error_detail().find("kernel 'set_flag'"), std::string::npos);
  EXPECT_EQ(flag.to_host()[0], 0);
}

INSTANTIATE_TEST_SUITE_P(Api, LaunchConfig,
                         ::testing::Values(Config{"no_blocks", dim3(0), dim3(32)},
                                           Config{"no_blocks_in_y", dim3(1, 0), dim3(32)},
                                           Config{"no_threads", dim3(1), dim3(0)},
                                           Config{"threads_1025", dim3(1), dim3(1025)},
                                           Config{"threads_32x33", dim3(1), dim3(32, 33)},
                                           Config{"block_z_65", dim3(1), dim3(1, 1, 65)},
                                           Config{"grid_y_65536", dim3(1, 65536), dim3(32)},
                                           Config{"grid_z_65536", dim3(1, 1, 65536), dim3(32)}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Api, LargestBlockRuns) {
  DeviceBuffer<int> flag(std::vector<int>{0});
  set_flag<<<dim3(1, 2, 2), dim3(16, 16, 4)>>>(flag.get());
  CHECK_LAUNCH();
  EXPECT_EQ(flag.to_host()[0], 1);
}

// Every thread adds 1 (and a little more) to counters shared by the whole grid.
struct Counters {
  int i;
  unsigned u;
  unsigned long long ull;
  float f;
  double d;
};
__global__ void count(Counters* c, int* old_values) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  old_values[id] = atomicAdd(&c->i, 1);
  atomicAdd(&c->u, 2u);
  atomicAdd(&c->ull, 1ull << 33);
  atomicAdd(&c->f, 1.0f);
  atomicAdd(&c->d, 0.5);
}

TEST(Api, GridWideAtomicAddCountsExactly) {
  cudasim::set_worker_threads(4);
  const unsigned blocks = 200, threads = 128, n = blocks * threads;
  DeviceBuffer<Counters> c(std::vector<Counters>{Counters{0, 0, 0, 0.0f, 0.0}});
  DeviceBuffer<int> old_values(n);
  count<<<blocks, threads>>>(c.get(), old_values.get());
  CHECK_LAUNCH();
  cudasim::set_worker_threads(0);
  const Counters r = c.to_host()[0];
  EXPECT_EQ(r.i, static_cast<int>(n));
  EXPECT_EQ(r.u, 2 * n);
  EXPECT_EQ(r.ull, std::uint64_t{n} << 33);
  EXPECT_EQ(r.f, static_cast<float>(n));
  EXPECT_EQ(r.d, 0.5 * n);
  auto old = old_values.to_host();  // atomicAdd returns the old value: each one exactly once
  std::sort(old.begin(), old.end());
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(old[i], static_cast<int>(i));
}

// Each CUDA thread gets its own copy of the arguments.
__global__ void consume_argument(int budget, int* out) {
  budget -= static_cast<int>(threadIdx.x);
  out[threadIdx.x] = budget;
}

TEST(Api, ArgumentsAreCopiedPerThread) {
  DeviceBuffer<int> out(64);
  consume_argument<<<1, 64>>>(1000, out.get());
  CHECK_LAUNCH();
  const auto v = out.to_host();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(v[i], 1000 - i);
}

__global__ void no_arguments() {}

TEST(Api, KernelWithoutArguments) {
  no_arguments<<<2, 32>>>();
  CHECK_LAUNCH();
}

// The maths device code uses resolves to CUDA's overloads: float in, float out.
__device__ float device_maths(float x) {
  return sqrtf(fabsf(x)) + fmaxf(x, 0.0f) + fminf(x, 1.0f) + rsqrtf(4.0f);
}
static_assert(std::is_same_v<decltype(sqrt(2.0f)), float>);
static_assert(std::is_same_v<decltype(log(2.0f)), float>);
static_assert(std::is_same_v<decltype(cos(2.0)), double>);

TEST(Api, DeviceMaths) { EXPECT_FLOAT_EQ(device_maths(4.0f), 2.0f + 4.0f + 1.0f + 0.5f); }

__global__ void launches_from_device(int* out) {
  set_flag<<<1, 1>>>(out);
  out[1] = cudaGetLastError();
}

TEST(Api, LaunchFromDeviceCodeIsRefused) {
  DeviceBuffer<int> out(std::vector<int>{0, 0});
  launches_from_device<<<1, 1>>>(out.get());
  CHECK_LAUNCH();
  const auto v = out.to_host();
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], cudaErrorNotSupported);
}

__global__ void diverges(int* out) {
  if (threadIdx.x < 16) __syncthreads();
  out[threadIdx.x] = 0;
}

TEST(CudaCheck, ThrowsCudaErrorWithTheSimulatorsDetail) {
  EXPECT_NO_THROW(CHECK_CUDA(cudaSuccess));
  DeviceBuffer<int> out(32);
  diverges<<<1, 32>>>(out.get());
  try {
    CHECK_LAUNCH();
    FAIL() << "no exception";
  } catch (const simtest::CudaError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), cudaErrorLaunchFailure);
    EXPECT_NE(what.find("cudaGetLastError() failed: cudaErrorLaunchFailure "
                        "(unspecified launch failure)"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("api_test.cu:"), std::string::npos) << what;
    EXPECT_NE(what.find("kernel 'diverges' block (0,0,0)"), std::string::npos) << what;
    EXPECT_NE(what.find("threads 16-31: returned from the kernel"), std::string::npos) << what;
  }
  EXPECT_THROW(CHECK_CUDA(cudaMemset(nullptr, 0, 4)), std::runtime_error);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // as in CUDA, the error stays until read
}

}  // namespace
