// Cooperative groups as llm.c uses them: this_thread_block, tiled_partition<32>, shfl_down,
// thread_rank, size, sync, and cg::reduce with cg::plus.
#include <gtest/gtest.h>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "cuda/runtime.hpp"
#include "tests/sim/device_buffer.hpp"

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

// Tiles of 8: a maximum per tile with cg::greater, every lane of the tile gets it.
__global__ void tile_max(const int* in, int* out) {
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(tile, in[threadIdx.x], cg::greater<int>());
}

TEST(CooperativeGroups, WarpTilesAndReduceGiveTheBlockSum) {
  const unsigned blocks = 3, threads = 128;
  std::vector<float> in(blocks * threads);
  std::iota(in.begin(), in.end(), 0.0f);
  DeviceBuffer<float> d_in(in), d_out(blocks);
  DeviceBuffer<unsigned> d_ranks(blocks * threads);
  block_sum_cg<<<blocks, threads>>>(d_in.ptr, d_out.ptr, d_ranks.ptr);
  ANDREA_CUDA_CHECK_LAUNCH();
  const auto out = d_out.get(blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    const double first = b * threads, last = (b + 1.0) * threads - 1;
    EXPECT_EQ(out[b], (first + last) * threads / 2) << "block " << b;
  }
  const auto ranks = d_ranks.get(blocks * threads);
  for (unsigned t = 0; t < threads; ++t) EXPECT_EQ(ranks[t], t % 32 + 100 * (t / 32) + 32000);
}

TEST(CooperativeGroups, ReduceOverTilesOfEight) {
  std::vector<int> in(32);
  for (int i = 0; i < 32; ++i) in[i] = (i * 13) % 32;
  DeviceBuffer<int> d_in(in), d_out(32);
  tile_max<<<1, 32>>>(d_in.ptr, d_out.ptr);
  ANDREA_CUDA_CHECK_LAUNCH();
  const auto out = d_out.get(32);
  for (int i = 0; i < 32; ++i) {
    const int tile = i / 8 * 8;
    EXPECT_EQ(out[i], *std::max_element(in.begin() + tile, in.begin() + tile + 8)) << i;
  }
}

}  // namespace
