// Warp shuffles and __syncwarp(): CUDA's exact lane semantics, and the errors for what is
// outside the simulator (partial masks, partial warps, lanes that have returned).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace {

constexpr unsigned kFull = 0xffffffffu;

enum Kind { kDown, kUp, kXor, kIdx };

template <class T>
__global__ void shuffle(const T* in, T* out, int kind, unsigned arg, int width) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[i];
  T r{};
  switch (kind) {
    case kDown:
      r = __shfl_down_sync(kFull, v, arg, width);
      break;
    case kUp:
      r = __shfl_up_sync(kFull, v, arg, width);
      break;
    case kXor:
      r = __shfl_xor_sync(kFull, v, static_cast<int>(arg), width);
      break;
    default:
      r = __shfl_sync(kFull, v, static_cast<int>(arg), width);
      break;
  }
  out[i] = r;
}

// What CUDA documents for each shuffle (the lane each lane reads, or its own).
unsigned expected_lane(int kind, unsigned lane, unsigned arg, unsigned width) {
  const unsigned base = lane / width * width;
  switch (kind) {
    case kDown:
      return lane % width + arg < width ? lane + arg : lane;
    case kUp:
      return lane % width >= arg ? lane - arg : lane;
    case kXor:
      return (lane ^ arg) < base + width ? lane ^ arg : lane;
    default:
      return base + arg % width;
  }
}

template <class T>
class Shuffle : public ::testing::Test {};
using ShuffleTypes = ::testing::Types<float, double, int, unsigned, long long, unsigned long long>;
TYPED_TEST_SUITE(Shuffle, ShuffleTypes);

TYPED_TEST(Shuffle, EveryKindDeltaAndWidthMatchesCuda) {
  using T = TypeParam;
  const unsigned n = 2 * 64;  // two blocks of two warps
  std::vector<T> in(n);
  for (unsigned i = 0; i < n; ++i) {
    in[i] = static_cast<T>(i * 3 + 1);
    if constexpr (sizeof(T) == 8 && std::is_integral_v<T>) in[i] += T{1} << 40;  // high bits too
    if constexpr (std::is_floating_point_v<T>) in[i] += static_cast<T>(0.25);
  }
  DeviceBuffer<T> d_in(in), d_out(n);
  for (int kind : {kDown, kUp, kXor, kIdx}) {
    for (int width : {32, 16, 8, 1}) {
      for (unsigned arg : {0u, 1u, 2u, 5u, 8u, 16u, 31u}) {
        shuffle<T><<<2, 64>>>(d_in.get(), d_out.get(), kind, arg, width);
        CHECK_LAUNCH();
        const auto out = d_out.to_host();
        for (unsigned i = 0; i < n; ++i) {
          const unsigned warp = i / 32 * 32, lane = i % 32;
          ASSERT_EQ(out[i], in[warp + expected_lane(kind, lane, arg, width)])
              << "kind " << kind << " width " << width << " arg " << arg << " thread " << i;
        }
      }
    }
  }
}

// The usual warp reduction: after the xor butterfly, every lane holds the warp's sum.
__global__ void butterfly_sum(const double* in, double* out) {
  double v = in[threadIdx.x];
  for (int mask = 16; mask > 0; mask /= 2) v += __shfl_xor_sync(kFull, v, mask);
  out[threadIdx.x] = v;
}

TEST(Warp, XorButterflyGivesEveryLaneTheSum) {
  std::vector<double> in(64);
  for (unsigned i = 0; i < 64; ++i) in[i] = 0.5 * i;
  DeviceBuffer<double> d_in(in), d_out(64);
  butterfly_sum<<<1, 64>>>(d_in.get(), d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(out[i], i < 32 ? 248.0 : 760.0);
}

// __syncwarp() orders shared-memory accesses inside a warp.
__global__ void warp_rotate(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = static_cast<int>(threadIdx.x) * 10;
  __syncwarp();
  const unsigned warp = threadIdx.x / 32 * 32;
  out[threadIdx.x] = s[warp + (threadIdx.x + 1) % 32];
}

TEST(Warp, SyncwarpMakesSharedWritesVisible) {
  cudasim::set_thread_order(cudasim::Order::forward);
  DeviceBuffer<int> d_out(64);
  warp_rotate<<<1, 64>>>(d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], (i / 32 * 32 + (i + 1) % 32) * 10);
}

__global__ void half_mask(float* out) { out[threadIdx.x] = __shfl_down_sync(0x0000ffffu, 1.0f, 1); }
__global__ void plain_shuffle(float* out) {
  out[threadIdx.x] = __shfl_down_sync(kFull, static_cast<float>(threadIdx.x), 1);
}
__global__ void lanes_return_early(float* out) {
  if (threadIdx.x >= 8) return;
  out[threadIdx.x] = __shfl_down_sync(kFull, 1.0f, 1);
}
__global__ void warp_op_meets_block_barrier(float* out) {
  if (threadIdx.x < 16) {
    out[threadIdx.x] = __shfl_xor_sync(kFull, 1.0f, 1);
  } else {
    __syncthreads();
  }
}

std::string failure_of_last_launch() {
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  return cudasim::last_error_detail();
}

TEST(WarpErrors, PartialMaskIsRejected) {
  DeviceBuffer<float> d_out(32);
  half_mask<<<1, 32>>>(d_out.get());
  const std::string detail = failure_of_last_launch();
  EXPECT_NE(detail.find("kernel 'half_mask'"), std::string::npos) << detail;
  EXPECT_NE(detail.find("mask 0x0000ffff"), std::string::npos) << detail;
}

// 48 threads: warp 1 has lanes 0-15 only. A lane whose source lane does not exist keeps its
// own value, like lane 31 of a full warp.
TEST(PartialWarp, ShuffleInTheLastWarpReadsOnlyItsLanes) {
  DeviceBuffer<float> d_out(48);
  plain_shuffle<<<1, 48>>>(d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (int i = 0; i < 48; ++i) {
    const bool last_lane = i == 31 || i == 47;
    EXPECT_EQ(out[i], static_cast<float>(last_lane ? i : i + 1)) << "thread " << i;
  }
}

TEST(WarpErrors, LanesThatReturnedAreReported) {
  DeviceBuffer<float> d_out(32);
  lanes_return_early<<<1, 32>>>(d_out.get());
  const std::string detail = failure_of_last_launch();
  EXPECT_NE(detail.find("warp 0"), std::string::npos) << detail;
  EXPECT_NE(detail.find("threads 0-7: wait at __shfl_down_sync()"), std::string::npos) << detail;
  EXPECT_NE(detail.find("threads 8-31: returned from the kernel"), std::string::npos) << detail;
}

TEST(WarpErrors, WarpOperationAndBlockBarrierCannotMeet) {
  DeviceBuffer<float> d_out(32);
  warp_op_meets_block_barrier<<<1, 32>>>(d_out.get());
  const std::string detail = failure_of_last_launch();
  EXPECT_NE(detail.find("not all 32 lanes reach the same __shfl_xor_sync()"), std::string::npos)
      << detail;
  EXPECT_NE(detail.find("threads 0-15: wait at __shfl_xor_sync()"), std::string::npos) << detail;
  EXPECT_NE(detail.find("threads 16-31: wait at __syncthreads()"), std::string::npos) << detail;
}

}  // namespace
