// __syncthreads(): what it guarantees, per-block shared memory, and how divergence is reported.
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace {

constexpr unsigned kThreads = 256;

// Each thread reads what its neighbour wrote before the barrier.
__global__ void rotate(const int* in, int* out) {
  __shared__ int s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x];
}

// A tree reduction: one barrier per level, plus a second phase that reuses shared memory.
__global__ void sum_then_broadcast(const int* in, int* out) {
  __shared__ int s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  const int total = s[0];
  __syncthreads();  // everyone has read s[0] before it is overwritten
  s[t] = total + static_cast<int>(t);
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}

// Transposes a 16x8x2 block through shared memory and records the built-in variables.
__global__ void indices_3d(unsigned* out) {
  __shared__ unsigned s[2][8][16];
  s[threadIdx.z][threadIdx.y][threadIdx.x] = threadIdx.x + 100 * threadIdx.y + 10000 * threadIdx.z;
  __syncthreads();
  const unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned block = blockIdx.x + gridDim.x * blockIdx.y;
  unsigned* o = out + (block * 256 + linear) * 4;
  o[0] = s[1 - threadIdx.z][7 - threadIdx.y][15 - threadIdx.x];
  o[1] = blockIdx.x + 100 * blockIdx.y + 10000 * blockIdx.z;
  o[2] = blockDim.x + 100 * blockDim.y + 10000 * blockDim.z;
  o[3] = gridDim.x + 100 * gridDim.y + 10000 * gridDim.z;
}

// Blocks interleave barriers on several workers; each must see only its own shared memory.
__global__ void own_shared(unsigned* out) {
  __shared__ unsigned s[64];
  unsigned ok = 1;
  for (int round = 0; round < 8; ++round) {
    s[threadIdx.x] = blockIdx.x * 1000 + round;
    __syncthreads();
    for (unsigned i = 0; i < blockDim.x; ++i) ok &= s[i] == blockIdx.x * 1000 + round;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = ok;
}

__global__ void barrier_in_branch(int* out) {
  if (threadIdx.x < 16) {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

constexpr int kEvenSiteLine = __LINE__ + 4;  // the two __syncthreads() below
constexpr int kOddSiteLine = __LINE__ + 5;
__global__ void two_barrier_sites(int* out) {
  if (threadIdx.x % 2 == 0) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

__global__ void throws_in_one_thread(int* out) {
  __syncthreads();
  if (blockIdx.x == 2 && threadIdx.x == 5) throw std::runtime_error("device code gave up");
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

std::string order_name(const ::testing::TestParamInfo<cudasim::Order>& info) {
  switch (info.param) {
    case cudasim::Order::forward:
      return "forward";
    case cudasim::Order::reverse:
      return "reverse";
    case cudasim::Order::random:
      return "random";
  }
  return "?";
}

class Barrier : public ::testing::TestWithParam<cudasim::Order> {
 protected:
  void SetUp() override { cudasim::set_thread_order(GetParam(), 3); }
  void TearDown() override { cudasim::set_thread_order(saved_.order, saved_.seed); }
  cudasim::ThreadOrder saved_ = cudasim::thread_order();
};

TEST_P(Barrier, WritesBeforeTheBarrierAreVisibleAfterIt) {
  const unsigned blocks = 4, n = blocks * kThreads;
  std::vector<int> in(n);
  std::iota(in.begin(), in.end(), 7);
  DeviceBuffer<int> d_in(in), d_out(n);
  rotate<<<blocks, kThreads>>>(d_in.get(), d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned i = 0; i < n; ++i) {
    const unsigned b = i / kThreads, t = i % kThreads;
    ASSERT_EQ(out[i], in[b * kThreads + (t + 1) % kThreads]) << "element " << i;
  }
}

TEST_P(Barrier, SeveralBarriersInSequence) {
  const unsigned blocks = 3, n = blocks * kThreads;
  std::vector<int> in(n);
  std::iota(in.begin(), in.end(), 0);
  DeviceBuffer<int> d_in(in), d_out(n);
  sum_then_broadcast<<<blocks, kThreads>>>(d_in.get(), d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned b = 0; b < blocks; ++b) {
    const auto first = in.begin() + b * kThreads;
    const int total = std::accumulate(first, first + kThreads, 0);
    for (unsigned t = 0; t < kThreads; ++t) {
      ASSERT_EQ(out[b * kThreads + t], total + static_cast<int>(kThreads - 1 - t));
    }
  }
}

TEST_P(Barrier, ThreeDimensionalBlocksAndGrids) {
  const dim3 grid(3, 2), block(16, 8, 2);
  DeviceBuffer<unsigned> d_out(6 * 256 * 4);
  indices_3d<<<grid, block>>>(d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned by = 0; by < 2; ++by)
    for (unsigned bx = 0; bx < 3; ++bx)
      for (unsigned z = 0; z < 2; ++z)
        for (unsigned y = 0; y < 8; ++y)
          for (unsigned x = 0; x < 16; ++x) {
            const unsigned* o = &out[((bx + 3 * by) * 256 + x + 16 * (y + 8 * z)) * 4];
            ASSERT_EQ(o[0], (15 - x) + 100 * (7 - y) + 10000 * (1 - z));
            ASSERT_EQ(o[1], bx + 100 * by);
            ASSERT_EQ(o[2], 16u + 100 * 8 + 10000 * 2);
            ASSERT_EQ(o[3], 3u + 100 * 2 + 10000);
          }
}

TEST_P(Barrier, SharedMemoryBelongsToOneBlock) {
  cudasim::set_worker_threads(4);
  const unsigned blocks = 64, threads = 64;
  DeviceBuffer<unsigned> d_out(blocks * threads);
  own_shared<<<blocks, threads>>>(d_out.get());
  CHECK_LAUNCH();
  cudasim::set_worker_threads(0);
  const auto out = d_out.to_host();
  for (unsigned i = 0; i < blocks * threads; ++i) ASSERT_EQ(out[i], 1u) << "thread " << i;
}

INSTANTIATE_TEST_SUITE_P(Orders, Barrier,
                         ::testing::Values(cudasim::Order::forward, cudasim::Order::reverse,
                                           cudasim::Order::random),
                         order_name);

TEST(BarrierDivergence, BarrierInABranchIsReportedNotHung) {
  DeviceBuffer<int> d_out(32);
  barrier_in_branch<<<1, 32>>>(d_out.get());
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  const std::string detail = cudasim::last_error_detail();
  EXPECT_NE(detail.find("kernel 'barrier_in_branch'"), std::string::npos) << detail;
  EXPECT_NE(detail.find("block (0,0,0)"), std::string::npos) << detail;
  EXPECT_NE(detail.find("threads 0-15: wait at __syncthreads() "), std::string::npos) << detail;
  EXPECT_NE(detail.find("threads 16-31: returned from the kernel"), std::string::npos) << detail;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // not sticky
}

TEST(BarrierDivergence, DifferentBarrierSitesAreReported) {
  DeviceBuffer<int> d_out(64);
  two_barrier_sites<<<dim3(1), dim3(64)>>>(d_out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  const std::string detail = cudasim::last_error_detail();
  EXPECT_NE(detail.find("kernel 'two_barrier_sites'"), std::string::npos) << detail;
  EXPECT_NE(detail.find("threads 0, 2, 4"), std::string::npos) << detail;
  EXPECT_NE(detail.find("threads 1, 3, 5"), std::string::npos) << detail;
  EXPECT_NE(detail.find("barrier_test.cu:" + std::to_string(kEvenSiteLine)), std::string::npos)
      << detail;
  EXPECT_NE(detail.find("barrier_test.cu:" + std::to_string(kOddSiteLine)), std::string::npos)
      << detail;
}

TEST(BarrierDivergence, DeviceExceptionFailsTheLaunchAndNamesTheThread) {
  cudasim::set_worker_threads(2);
  DeviceBuffer<int> d_out(8 * 64);
  throws_in_one_thread<<<8, 64>>>(d_out.get());
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  const std::string detail = cudasim::last_error_detail();
  EXPECT_NE(detail.find("kernel 'throws_in_one_thread' block (2,0,0) thread (5,0,0): "
                        "device code gave up"),
            std::string::npos)
      << detail;
  // The next launch runs normally.
  rotate<<<1, kThreads>>>(d_out.get(), d_out.get() + kThreads);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudasim::set_worker_threads(0);
}

TEST(BarrierDivergence, OutsideAKernelIsAnError) {
  EXPECT_THROW(__syncthreads(), std::logic_error);
}

}  // namespace
