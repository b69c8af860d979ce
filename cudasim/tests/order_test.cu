// Thread order: a missing __syncthreads() must be caught by at least one order, while the
// correct kernel is right in all of them. This is the planted-bug check of the course's tests.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace {

constexpr unsigned kThreads = 256;

__global__ void block_sum(const float* in, float* out) {
  __shared__ float s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// The planted bug: no barrier between the levels of the tree.
__global__ void block_sum_missing_barrier(const float* in, float* out) {
  __shared__ float s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

class ThreadOrder : public ::testing::Test {
 protected:
  void TearDown() override { cudasim::set_thread_order(saved_.order, saved_.seed); }

  // Sums of 4 blocks of 1..256 (exact in float); true if every block got 32896.
  bool sums_right(void (*kernel)(const float*, float*), cudasim::Order order, unsigned seed = 0) {
    cudasim::set_thread_order(order, seed);
    std::vector<float> in(4 * kThreads);
    for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % kThreads + 1);
    DeviceBuffer<float> d_in(in), d_out(4);
    kernel<<<4, kThreads>>>(d_in.get(), d_out.get());
    CHECK_LAUNCH();
    bool right = true;
    for (float s : d_out.to_host()) right = right && s == 32896.0f;
    return right;
  }

  cudasim::ThreadOrder saved_ = cudasim::thread_order();
};

TEST_F(ThreadOrder, CorrectReductionIsRightInEveryOrder) {
  EXPECT_TRUE(sums_right(block_sum, cudasim::Order::forward));
  EXPECT_TRUE(sums_right(block_sum, cudasim::Order::reverse));
  for (unsigned seed : {0u, 1u, 2u, 42u}) {
    EXPECT_TRUE(sums_right(block_sum, cudasim::Order::random, seed)) << "seed " << seed;
  }
}

TEST_F(ThreadOrder, MissingBarrierIsWrongInSomeOrder) {
  const bool forward = sums_right(block_sum_missing_barrier, cudasim::Order::forward);
  const bool reverse = sums_right(block_sum_missing_barrier, cudasim::Order::reverse);
  EXPECT_FALSE(forward && reverse) << "a missing __syncthreads() went unnoticed";
  EXPECT_FALSE(sums_right(block_sum_missing_barrier, cudasim::Order::random, 1));
}

// Records the position at which each thread of the block first ran.
__global__ void run_position(int* counter, int* position) {
  position[threadIdx.x] = atomicAdd(counter, 1);
}

std::vector<int> positions(cudasim::Order order, unsigned seed = 0) {
  cudasim::set_thread_order(order, seed);
  DeviceBuffer<int> counter(std::vector<int>{0}), position(64);
  run_position<<<1, 64>>>(counter.get(), position.get());
  CHECK_LAUNCH();
  return position.to_host();
}

TEST_F(ThreadOrder, OrdersAreWhatTheySayAndRandomIsReproducible) {
  const auto forward = positions(cudasim::Order::forward);
  const auto reverse = positions(cudasim::Order::reverse);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(forward[i], i);
    EXPECT_EQ(reverse[i], 63 - i);
  }
  EXPECT_EQ(positions(cudasim::Order::random, 5), positions(cudasim::Order::random, 5));
  EXPECT_NE(positions(cudasim::Order::random, 5), positions(cudasim::Order::random, 6));
  EXPECT_NE(positions(cudasim::Order::random, 5), forward);
}

// Records the position at which each block ran (thread 0 of each block counts).
__global__ void block_position(int* counter, int* position) {
  if (threadIdx.x == 0) position[blockIdx.x] = atomicAdd(counter, 1);
}

std::vector<int> block_positions(cudasim::Order order, unsigned seed = 0) {
  cudasim::set_thread_order(order, seed);
  DeviceBuffer<int> counter(std::vector<int>{0}), position(40);
  block_position<<<40, 32>>>(counter.get(), position.get());
  CHECK_LAUNCH();
  return position.to_host();
}

// With one worker, the blocks run one after the other in the thread order too, so that a race
// between blocks shows in one order and every run gives the same result.
TEST_F(ThreadOrder, BlocksFollowTheOrderWithOneWorker) {
  cudasim::set_worker_threads(1);
  const auto forward = block_positions(cudasim::Order::forward);
  const auto reverse = block_positions(cudasim::Order::reverse);
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(forward[i], i);
    EXPECT_EQ(reverse[i], 39 - i);
  }
  EXPECT_EQ(block_positions(cudasim::Order::random, 5), block_positions(cudasim::Order::random, 5));
  EXPECT_NE(block_positions(cudasim::Order::random, 5), forward);
  cudasim::set_worker_threads(0);
}

TEST(ThreadOrderSyntax, ParsesTheEnvironmentVariable) {
  using cudasim::Order;
  EXPECT_EQ(cudasim::parse_thread_order("forward")->order, Order::forward);
  EXPECT_EQ(cudasim::parse_thread_order("reverse")->order, Order::reverse);
  EXPECT_EQ(cudasim::parse_thread_order("random")->order, Order::random);
  EXPECT_EQ(cudasim::parse_thread_order("random:7")->seed, 7u);
  EXPECT_FALSE(cudasim::parse_thread_order("backward"));
  EXPECT_FALSE(cudasim::parse_thread_order("random:"));
  EXPECT_FALSE(cudasim::parse_thread_order("random:7x"));
  EXPECT_FALSE(cudasim::parse_thread_order("forward:3"));
}

// The first launch of a process reads CUDASIM_ORDER, so this test needs a process of its own:
// CMake runs it alone with CUDASIM_RUNTIME_ENV_TEST=1 and CUDASIM_ORDER set. Else it is skipped.
TEST(ThreadOrderEnvironment, FirstLaunchReadsIt) {
  const char* env = std::getenv("CUDASIM_ORDER");
  if (std::getenv("CUDASIM_RUNTIME_ENV_TEST") == nullptr || env == nullptr) {
    GTEST_SKIP() << "run alone by CMake, with CUDASIM_ORDER set";
  }
  DeviceBuffer<int> counter(std::vector<int>{0}), position(64);
  run_position<<<1, 64>>>(counter.get(), position.get());
  const auto expected = cudasim::parse_thread_order(env);
  if (expected) {
    CHECK_LAUNCH();
    EXPECT_EQ(cudasim::thread_order().order, expected->order);
    EXPECT_EQ(cudasim::thread_order().seed, expected->seed);
  } else {  // a value that does not parse fails every launch, loudly
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_NE(cudasim::last_error_detail().find("CUDASIM_ORDER=" + std::string(env)),
              std::string::npos);
  }
}

}  // namespace
