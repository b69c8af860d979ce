// Cooperative groups as llm.c uses them: this_thread_block, tiled_partition<32>, shfl_down,
// thread_rank, size, sync, and cg::reduce with cg::plus.
#include <gtest/gtest.h>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace cg = cooperative_groups;

namespace {

// One sum per block of 128: each warp reduces with shfl_down, warp sums meet in shared
// memory, warp 0 adds them with cg::reduce.
__global__ void block_sum_cg(const float* in, float* out, unsigned* ranks) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float warp_sums[4];
  const unsigned i = blockIdx.x * block.size() + block.thread_rank();
  float v = in[i];
  for (int offset = 16; offset > 0; offset /= 2) v += warp.shfl_down(v, offset);
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    const float w = warp.thread_rank() < 4 ? warp_sums[warp.thread_rank()] : 0.0f;
    const float total = cg::reduce(warp, w, cg::plus<float>());
    if (warp.thread_rank() == 0) out[blockIdx.x] = total;
  }
  ranks[i] = warp.thread_rank() + 100 * warp.meta_group_rank() + 1000 * warp.size();
}

// Tiles of 8: a maximum per tile with cg::greater, every lane of the tile gets it; and a
// ballot whose bits are the tile's lanes.
__global__ void tile_max(const int* in, int* out, unsigned* ballots) {
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(tile, in[threadIdx.x], cg::greater<int>());
  ballots[threadIdx.x] = tile.ballot(in[threadIdx.x] > 15);
}

// llm.c's pattern: one warp per row, the row index from meta_group_size/meta_group_rank,
// sums with cg::reduce, results written with streaming stores.
__global__ void row_mean_rstd(const float* x, float* mean, float* rstd, int rows, int cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (row >= rows) return;
  const float* r = x + row * cols;
  float sum = 0.0f;
  for (int c = warp.thread_rank(); c < cols; c += warp.size()) sum += r[c];
  const float m = cg::reduce(warp, sum, cg::plus<float>{}) / cols;
  float squares = 0.0f;
  for (int c = warp.thread_rank(); c < cols; c += warp.size()) squares += (r[c] - m) * (r[c] - m);
  const float var = cg::reduce(warp, squares, cg::plus<float>{}) / cols;
  if (warp.thread_rank() == 0) {
    __stcs(mean + row, m);
    __stcs(rstd + row, rsqrtf(var + 1e-5f));
  }
}

TEST(CooperativeGroups, OneWarpPerRowMeanAndRstd) {
  const int rows = 5, cols = 40;  // 5 rows: the last block has warps without a row
  std::vector<float> x(rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = static_cast<float>((i * 37) % 17) - 8.0f;
  DeviceBuffer<float> d_x(x), d_mean(rows), d_rstd(rows);
  row_mean_rstd<<<(rows + 3) / 4, 128>>>(d_x.get(), d_mean.get(), d_rstd.get(), rows, cols);
  CHECK_LAUNCH();
  const auto mean = d_mean.to_host(), rstd = d_rstd.to_host();
  for (int r = 0; r < rows; ++r) {
    double m = 0.0, v = 0.0;
    for (int c = 0; c < cols; ++c) m += x[r * cols + c];
    m /= cols;
    for (int c = 0; c < cols; ++c) v += (x[r * cols + c] - m) * (x[r * cols + c] - m);
    v /= cols;
    EXPECT_NEAR(mean[r], m, 1e-5) << "row " << r;
    EXPECT_NEAR(rstd[r], 1.0 / std::sqrt(v + 1e-5), 1e-5) << "row " << r;
  }
}

TEST(CooperativeGroups, WarpTilesAndReduceGiveTheBlockSum) {
  const unsigned blocks = 3, threads = 128;
  std::vector<float> in(blocks * threads);
  std::iota(in.begin(), in.end(), 0.0f);
  DeviceBuffer<float> d_in(in), d_out(blocks);
  DeviceBuffer<unsigned> d_ranks(blocks * threads);
  block_sum_cg<<<blocks, threads>>>(d_in.get(), d_out.get(), d_ranks.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned b = 0; b < blocks; ++b) {
    const double first = b * threads, last = (b + 1.0) * threads - 1;
    EXPECT_EQ(out[b], (first + last) * threads / 2) << "block " << b;
  }
  const auto ranks = d_ranks.to_host();
  for (unsigned t = 0; t < threads; ++t) EXPECT_EQ(ranks[t], t % 32 + 100 * (t / 32) + 32000);
}

TEST(CooperativeGroups, ReduceAndBallotOverTilesOfEight) {
  std::vector<int> in(32);
  for (int i = 0; i < 32; ++i) in[i] = (i * 13) % 32;
  DeviceBuffer<int> d_in(in), d_out(32);
  DeviceBuffer<unsigned> d_ballots(32);
  tile_max<<<1, 32>>>(d_in.get(), d_out.get(), d_ballots.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  const auto ballots = d_ballots.to_host();
  for (int i = 0; i < 32; ++i) {
    const int tile = i / 8 * 8;
    EXPECT_EQ(out[i], *std::max_element(in.begin() + tile, in.begin() + tile + 8)) << i;
    unsigned expected = 0;
    for (int j = 0; j < 8; ++j) expected |= (in[tile + j] > 15 ? 1u : 0u) << j;
    EXPECT_EQ(ballots[i], expected) << i;
  }
}

// cg::reduce over tiles of several warps (64 to 1024 threads): the sum, minimum and maximum
// of each tile, given to every thread of it. Thread t holds (t * 7) % 1000 - 300.
template <unsigned kTile>
__global__ void wide_tile_reduce(int* sums, int* mins, int* maxs) {
  const auto tile = cg::tiled_partition<kTile>(cg::this_thread_block());
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int v = (t * 7) % 1000 - 300;
  sums[t] = cg::reduce(tile, v, cg::plus<int>());
  mins[t] = cg::reduce(tile, v, cg::less<int>());
  maxs[t] = cg::reduce(tile, v, cg::greater<int>());
}

template <unsigned kTile>
void check_wide_tile_reduce(unsigned blocks, unsigned threads) {
  const unsigned n = blocks * threads;
  DeviceBuffer<int> d_sums(n), d_mins(n), d_maxs(n);
  wide_tile_reduce<kTile><<<blocks, threads>>>(d_sums.get(), d_mins.get(), d_maxs.get());
  CHECK_LAUNCH();
  const auto sums = d_sums.to_host(), mins = d_mins.to_host(), maxs = d_maxs.to_host();
  for (unsigned first = 0; first < n; first += kTile) {
    int sum = 0, lo = 1 << 30, hi = -(1 << 30);
    for (unsigned t = first; t < first + kTile; ++t) {
      const int v = static_cast<int>(t * 7 % 1000) - 300;
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    for (unsigned t = first; t < first + kTile; ++t) {
      ASSERT_EQ(sums[t], sum) << "tile of " << kTile << ", thread " << t;
      ASSERT_EQ(mins[t], lo) << "tile of " << kTile << ", thread " << t;
      ASSERT_EQ(maxs[t], hi) << "tile of " << kTile << ", thread " << t;
    }
  }
}

TEST(CooperativeGroups, ReduceOverTilesWiderThanAWarp) {
  check_wide_tile_reduce<64>(2, 256);
  check_wide_tile_reduce<128>(2, 256);
  check_wide_tile_reduce<256>(1, 512);
  check_wide_tile_reduce<1024>(1, 1024);
}

TEST(CooperativeGroups, ReduceOverATileOf64WorkedByHand) {
  DeviceBuffer<int> d_sums(64), d_mins(64), d_maxs(64);
  wide_tile_reduce<64><<<1, 64>>>(d_sums.get(), d_mins.get(), d_maxs.get());
  CHECK_LAUNCH();
  // 7 (0 + ... + 63) - 64 * 300 = 14,112 - 19,200; t = 0 gives -300, t = 63 gives 141.
  EXPECT_EQ(d_sums.to_host()[5], -5088);
  EXPECT_EQ(d_mins.to_host()[63], -300);
  EXPECT_EQ(d_maxs.to_host()[0], 141);
}

}  // namespace
