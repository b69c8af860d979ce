// Warp shuffles and __syncwarp(): CUDA's exact lane semantics, partial masks (segmented scans,
// a ballot-masked tail, match groups, __activemask) under every thread order, and the errors
// for what CUDA leaves undefined (a mask without the calling lane, lanes of one mask at
// different operations, lanes that have returned).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
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

// --- Partial masks: each test runs under every thread order of the layer.

class PartialMask : public ::testing::TestWithParam<cudasim::ThreadOrder> {
 protected:
  void SetUp() override { cudasim::set_thread_order(GetParam().order, GetParam().seed); }
  void TearDown() override { cudasim::set_thread_order(saved_.order, saved_.seed); }
  cudasim::ThreadOrder saved_ = cudasim::thread_order();
};

std::string order_name(const ::testing::TestParamInfo<cudasim::ThreadOrder>& info) {
  switch (info.param.order) {
    case cudasim::Order::forward:
      return "forward";
    case cudasim::Order::reverse:
      return "reverse";
    case cudasim::Order::random:
      return "random" + std::to_string(info.param.seed);
  }
  return "?";
}

INSTANTIATE_TEST_SUITE_P(Orders, PartialMask,
                         ::testing::Values(cudasim::ThreadOrder{cudasim::Order::forward, 0},
                                           cudasim::ThreadOrder{cudasim::Order::reverse, 0},
                                           cudasim::ThreadOrder{cudasim::Order::random, 1},
                                           cudasim::ThreadOrder{cudasim::Order::random, 7}),
                         order_name);

// Inclusive scan of each segment of `width` lanes, by the lanes of `mask` only; the others
// skip it and keep their value.
__global__ void segmented_scan(int* data, unsigned mask, int width) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  int x = data[threadIdx.x];
  if ((mask >> lane & 1u) != 0) {
    for (int d = 1; d < width; d *= 2) {
      const int y = __shfl_up_sync(mask, x, d, width);
      if (lane % width >= d) x += y;
    }
  }
  data[threadIdx.x] = x;
}

// Two warps, each value the position in its segment plus one: [1, 2, ..., width] per segment.
// Returns the data after the scan.
std::vector<int> scan(unsigned mask, int width) {
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i) in[i] = i % width + 1;
  DeviceBuffer<int> d_data(in);
  segmented_scan<<<1, 64>>>(d_data.get(), mask, width);
  CHECK_LAUNCH();
  return d_data.to_host();
}

const std::vector<int> kScan8{1, 3, 6, 10, 15, 21, 28, 36};
const std::vector<int> kScan16{1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78, 91, 105, 120, 136};
const std::vector<int> kInput8{1, 2, 3, 4, 5, 6, 7, 8};

std::vector<int> slice(const std::vector<int>& v, int first, int count) {
  return {v.begin() + first, v.begin() + first + count};
}

TEST_P(PartialMask, ScanOfWidth8ByLanes0To7Alone) {
  const auto out = scan(0x000000ffu, 8);
  for (int warp : {0, 32}) {
    EXPECT_EQ(slice(out, warp, 8), kScan8) << "warp at " << warp;
    for (int seg = 8; seg < 32; seg += 8) EXPECT_EQ(slice(out, warp + seg, 8), kInput8);
  }
}

TEST_P(PartialMask, ScanOfWidth8ByTwoSegmentsOfOneMask) {
  const auto out = scan(0x00ff00ffu, 8);  // lanes 0-7 and 16-23
  for (int warp : {0, 32}) {
    EXPECT_EQ(slice(out, warp, 8), kScan8);
    EXPECT_EQ(slice(out, warp + 8, 8), kInput8);
    EXPECT_EQ(slice(out, warp + 16, 8), kScan8);
    EXPECT_EQ(slice(out, warp + 24, 8), kInput8);
  }
}

TEST_P(PartialMask, ScanOfWidth8ByTheFullMask) {
  const auto out = scan(kFull, 8);
  for (int seg = 0; seg < 64; seg += 8) EXPECT_EQ(slice(out, seg, 8), kScan8) << "at " << seg;
}

TEST_P(PartialMask, ScanOfWidth16ByLanes16To31Alone) {
  const auto out = scan(0xffff0000u, 16);
  for (int warp : {0, 32}) {
    EXPECT_EQ(slice(out, warp + 16, 16), kScan16);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(out[warp + i], i + 1);
  }
}

TEST_P(PartialMask, ScanOfWidth16ByTheFullMask) {
  const auto out = scan(kFull, 16);
  for (int seg = 0; seg < 64; seg += 16) EXPECT_EQ(slice(out, seg, 16), kScan16) << "at " << seg;
}

// The tail of a reduction: n values, a block of 64. Each warp's lanes below n (a ballot) add
// their values with shuffles under that mask; lanes at or past n go straight to the barrier.
__global__ void tail_sum(const int* in, unsigned n, int* out) {
  __shared__ int warp_sums[2];
  const unsigned tid = threadIdx.x, lane = tid % 32;
  const unsigned mask = __ballot_sync(kFull, tid < n);
  if (tid < n) {
    int v = in[tid];
    const unsigned count = __popc(mask);  // the lanes below n are lanes 0 to count - 1
    for (unsigned offset = 16; offset > 0; offset /= 2) {
      const int other = __shfl_down_sync(mask, v, offset);
      if (lane + offset < count) v += other;
    }
    if (lane == 0) warp_sums[tid / 32] = v;
  }
  if (lane == 0) out[1 + tid / 32] = static_cast<int>(mask);
  __syncthreads();
  if (tid == 0) out[0] = warp_sums[0] + (n > 32 ? warp_sums[1] : 0);
}

TEST_P(PartialMask, BallotMaskedTailSumsThirtySevenValues) {
  std::vector<int> in(64, -1000);  // past n: never read
  for (int i = 0; i < 37; ++i) in[i] = i + 1;
  DeviceBuffer<int> d_in(in), d_out(3);
  tail_sum<<<1, 64>>>(d_in.get(), 37, d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  EXPECT_EQ(out[0], std::accumulate(in.begin(), in.begin() + 37, 0));
  EXPECT_EQ(out[0], 703);  // 1 + 2 + ... + 37
  EXPECT_EQ(static_cast<unsigned>(out[1]), kFull);
  EXPECT_EQ(static_cast<unsigned>(out[2]), 0x0000001fu);  // warp 1: lanes 0-4 (threads 32-36)
}

// A lane that reads a lane outside the mask gets the layer's undefined value, all bits set.
__global__ void read_outside_mask(unsigned* out) {
  const unsigned lane = threadIdx.x;
  if (lane < 4) out[lane] = __shfl_down_sync(0x0000000fu, lane * 10, 1);
}

TEST_P(PartialMask, ReadFromALaneOutsideTheMaskIsAllOnes) {
  DeviceBuffer<unsigned> d_out(4);
  read_outside_mask<<<1, 32>>>(d_out.get());
  CHECK_LAUNCH();
  EXPECT_EQ(d_out.to_host(), (std::vector<unsigned>{10, 20, 30, 0xffffffffu}));
  static_assert(cudasim::detail::kOutsideMask == ~0ull);
}

// Votes and matches by lanes 8-15 (mask 0xff00) and by lanes 0-15 (0xffff) of one warp.
__global__ void masked_votes(unsigned* out) {
  const unsigned lane = threadIdx.x;
  if (lane >= 8 && lane < 16) {
    out[0] = __ballot_sync(0xff00u, lane % 2 == 0);
    out[1] = __any_sync(0xff00u, lane == 9);
    out[2] = __all_sync(0xff00u, lane >= 8);
    out[3] = __all_sync(0xff00u, lane < 15);
    int pred = -1;
    out[4] = __match_all_sync(0xff00u, 7.5f, &pred);
    out[5] = static_cast<unsigned>(pred);
    out[6] = __match_all_sync(0xff00u, lane < 12 ? 7LL : 8LL, &pred);
    out[7] = static_cast<unsigned>(pred);
  }
  if (lane < 16) out[8 + lane] = __match_any_sync(0xffffu, lane % 3);
  out[24 + lane] = __match_any_sync(kFull, static_cast<double>(lane % 3));
}

TEST_P(PartialMask, VotesAndMatchesSeeOnlyTheLanesOfTheMask) {
  DeviceBuffer<unsigned> d_out(56);
  masked_votes<<<1, 32>>>(d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  EXPECT_EQ(std::vector<unsigned>(out.begin(), out.begin() + 8),
            (std::vector<unsigned>{0x5500, 1, 1, 0, 0xff00, 1, 0, 0}));
  const unsigned by_rest16[3] = {0x9249u, 0x2492u, 0x4924u};  // lanes 0, 3, ..., 15; 1, ...; 2, ...
  const unsigned by_rest32[3] = {0x49249249u, 0x92492492u, 0x24924924u};
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (lane < 16) {
      EXPECT_EQ(out[8 + lane], by_rest16[lane % 3]) << "lane " << lane;
    }
    EXPECT_EQ(out[24 + lane], by_rest32[lane % 3]) << "lane " << lane;
  }
}

// __activemask() in a branch, the other lanes waiting at the __syncthreads() after it: warp 0's
// lanes 0-19 and warp 1's odd lanes sum their lane numbers over the active mask.
__global__ void active_in_branch(unsigned* out) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (warp == 0 ? lane < 20 : lane % 2 == 1) {
    const unsigned active = __activemask();
    const unsigned sum = __reduce_add_sync(active, lane);
    if (lane == static_cast<unsigned>(__ffs(static_cast<int>(active)) - 1)) {
      out[2 * warp] = active;
      out[2 * warp + 1] = sum;
    }
  }
  __syncthreads();
}

TEST_P(PartialMask, ActivemaskInABranchNamesTheLanesInIt) {
  DeviceBuffer<unsigned> d_out(4);
  active_in_branch<<<1, 64>>>(d_out.get());
  CHECK_LAUNCH();
  // 0 + 1 + ... + 19 = 190; 1 + 3 + ... + 31 = 256
  EXPECT_EQ(d_out.to_host(), (std::vector<unsigned>{0x000fffffu, 190, 0xaaaaaaaau, 256}));
}

// The errors, as compute-sanitizer's synccheck reports them: a failed launch naming the kernel,
// the line, the mask and the lanes, not a hang.
__global__ void omits_own_lane(int* out) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned mask = lane == 5 ? ~(1u << 5) : kFull;  // lane 5 leaves itself out
  out[threadIdx.x] = __shfl_sync(mask, static_cast<int>(lane), 0);
}
constexpr int kOmitLine = __LINE__ - 2;

__global__ void mismatched(unsigned* out) {
  const unsigned lane = threadIdx.x % 32;
  if (lane < 4) {
    out[lane] = __shfl_sync(0xffu, lane, 0);
  } else if (lane < 8) {
    out[lane] = __ballot_sync(0xffu, 1);
  }
}
constexpr int kShuffleLine = __LINE__ - 5, kBallotLine = __LINE__ - 3;

__global__ void named_lane_returns(unsigned* out) {
  const unsigned lane = threadIdx.x % 32;
  if (lane == 7 || lane >= 8) return;
  __syncwarp(0xffu);
  out[lane] = lane;
}

std::string at_line(int line) { return "warp_test.cu:" + std::to_string(line) + ":"; }

TEST_P(PartialMask, AMaskWithoutTheCallingLaneIsAnError) {
  DeviceBuffer<int> d_out(32);
  omits_own_lane<<<1, 32>>>(d_out.get());
  const std::string detail = failure_of_last_launch();
  EXPECT_NE(detail.find("kernel 'omits_own_lane' block (0,0,0) thread (5,0,0): __shfl_sync() at "),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find(at_line(kOmitLine)), std::string::npos) << detail;
  EXPECT_NE(detail.find("mask 0xffffffdf (lanes 0-4, 6-31) leaves out the calling lane 5"),
            std::string::npos)
      << detail;
}

TEST_P(PartialMask, LanesOfOneMaskAtDifferentOperationsAreAnError) {
  DeviceBuffer<unsigned> d_out(32);
  mismatched<<<1, 32>>>(d_out.get());
  const std::string detail = failure_of_last_launch();
  EXPECT_NE(detail.find("kernel 'mismatched' block (0,0,0): warp 0: not all 8 lanes reach the "
                        "same __shfl_sync() (mask 0x000000ff: lanes 0-7)"),
            std::string::npos)
      << detail;
  const auto threads_0_3 = detail.find("threads 0-3: wait at __shfl_sync() ");
  const auto threads_4_7 = detail.find("threads 4-7: wait at __ballot_sync() ");
  ASSERT_NE(threads_0_3, std::string::npos) << detail;
  ASSERT_NE(threads_4_7, std::string::npos) << detail;
  EXPECT_NE(detail.find(at_line(kShuffleLine), threads_0_3), std::string::npos) << detail;
  EXPECT_NE(detail.find(at_line(kBallotLine), threads_4_7), std::string::npos) << detail;
  EXPECT_NE(detail.find("with mask 0x000000ff"), std::string::npos) << detail;
  EXPECT_EQ(detail.find("thread 8"), std::string::npos) << detail;  // outside the mask
}

TEST_P(PartialMask, ANamedLaneThatReturnsIsAnError) {
  DeviceBuffer<unsigned> d_out(32);
  named_lane_returns<<<1, 32>>>(d_out.get());
  const std::string detail = failure_of_last_launch();
  EXPECT_NE(detail.find("warp 0: not all 8 lanes reach the same __syncwarp() (mask 0x000000ff: "
                        "lanes 0-7)"),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("threads 0-6: wait at __syncwarp() "), std::string::npos) << detail;
  EXPECT_NE(detail.find("thread 7: returned from the kernel"), std::string::npos) << detail;
}

}  // namespace
