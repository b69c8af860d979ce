// Cooperative groups (CUDA Programming Guide, "Cooperative Groups"): the guide's reduce_sum
// over a cg::thread_group, run on the whole block and on tiles of 16 made at run time; a warp
// tile that shuffles vector types (float4, short2, double2) with shfl_down; and tiles of 128
// threads (four warps, with block_tile_memory) that broadcast with shfl, vote with any/all
// and sum with cg::reduce. Each result is checked against the host's. Exit 0 when it passes.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <helper_check.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;

/// The guide's example: the sum of val over the group g, with temp[g.size()] as scratch.
__device__ int reduce_sum(cg::thread_group g, int* temp, int val) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    temp[lane] = val;
    g.sync();
    if (lane < i) val += temp[lane + i];
    g.sync();
  }
  return val;  // the whole sum in thread 0 of the group
}

__global__ void groupSums(const int* in, int* block_sums, int* tile_sums) {
  __shared__ int temp[kThreads];
  cg::thread_block block = cg::this_thread_block();
  const int v = in[blockIdx.x * kThreads + block.thread_rank()];
  const int block_sum = reduce_sum(block, temp, v);
  if (block.thread_rank() == 0) block_sums[blockIdx.x] = block_sum;
  block.sync();
  cg::thread_group tile16 = cg::tiled_partition(block, 16);
  const int base = block.thread_rank() / 16 * 16;
  const int tile_sum = reduce_sum(tile16, temp + base, v);
  if (tile16.thread_rank() == 0) tile_sums[(blockIdx.x * kThreads + base) / 16] = tile_sum;
}

__global__ void vectorShuffles(float4* f, short2* s, double2* d) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 mine = f[i];
  const short2 small = s[i];
  const double2 wide = d[i];
  __syncwarp();
  f[i] = warp.shfl_down(mine, 1);  // the lane above's, the last lane its own
  s[i] = warp.shfl_xor(small, 1);  // the neighbour's: lanes 0 and 1 swap, 2 and 3, ...
  d[i] = warp.shfl(wide, 31);      // lane 31's
}

__global__ void bigTiles(const int* in, int* out) {
  __shared__ cg::block_tile_memory<kThreads> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<128> tile = cg::tiled_partition<128>(block);
  const int i = blockIdx.x * kThreads + block.thread_rank();
  const int v = in[i];
  const int first = tile.shfl(v, 0);
  const bool any_big = tile.any(v > 90);
  const bool all_positive = tile.all(v > 0);
  tile.sync();
  const int sum = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) {
    int* o = out + 5 * (blockIdx.x * 2 + tile.meta_group_rank());
    o[0] = first;
    o[1] = any_big;
    o[2] = all_positive;
    o[3] = sum;
    o[4] = tile.num_threads() * 10 + tile.meta_group_size();
  }
}

int main() {
  const int blocks = 4, n = blocks * kThreads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = 1 + (i * 53) % 89 + (i == 300 ? 10 : 0);  // only 300 is > 90
  int failures = 0;

  int *d_in, *d_block, *d_tile, *d_big;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_block, blocks * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_tile, n / 16 * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_big, blocks * 2 * 5 * sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  groupSums<<<blocks, kThreads>>>(d_in, d_block, d_tile);
  getLastCudaError("groupSums failed");
  bigTiles<<<blocks, kThreads>>>(d_in, d_big);
  getLastCudaError("bigTiles failed");
  std::vector<int> block_sums(blocks), tile_sums(n / 16), big(blocks * 2 * 5);
  checkCudaErrors(
      cudaMemcpy(block_sums.data(), d_block, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(
      cudaMemcpy(tile_sums.data(), d_tile, n / 16 * sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(big.data(), d_big, big.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) {
    int sum = 0;
    for (int t = 0; t < kThreads; ++t) sum += in[b * kThreads + t];
    failures += block_sums[b] != sum;
  }
  for (int t = 0; t < n / 16; ++t) {
    int sum = 0;
    for (int l = 0; l < 16; ++l) sum += in[t * 16 + l];
    failures += tile_sums[t] != sum;
  }
  for (int t = 0; t < blocks * 2; ++t) {
    int sum = 0, any_big = 0, all_positive = 1;
    for (int l = 0; l < 128; ++l) {
      sum += in[t * 128 + l];
      any_big |= in[t * 128 + l] > 90;
      all_positive &= in[t * 128 + l] > 0;
    }
    const int* o = &big[5 * t];
    if (o[0] != in[t * 128] || o[1] != any_big || o[2] != all_positive || o[3] != sum ||
        o[4] != 128 * 10 + 2) {
      std::printf("tile %d of 128: %d %d %d %d %d, expected %d %d %d %d %d\n", t, o[0], o[1], o[2],
                  o[3], o[4], in[t * 128], any_big, all_positive, sum, 128 * 10 + 2);
      ++failures;
    }
  }

  const int m = 64;  // two warps
  std::vector<float4> f(m);
  std::vector<short2> s(m);
  std::vector<double2> d(m);
  for (int i = 0; i < m; ++i) {
    f[i] = make_float4(i, i + 0.5f, -i, 2.0f * i);
    s[i] = make_short2(static_cast<short>(i), static_cast<short>(-3 * i));
    d[i] = make_double2(i * 0.25, 1e10 + i);
  }
  float4* d_f;
  short2* d_s;
  double2* d_d;
  checkCudaErrors(cudaMalloc(&d_f, m * sizeof(float4)));
  checkCudaErrors(cudaMalloc(&d_s, m * sizeof(short2)));
  checkCudaErrors(cudaMalloc(&d_d, m * sizeof(double2)));
  checkCudaErrors(cudaMemcpy(d_f, f.data(), m * sizeof(float4), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_s, s.data(), m * sizeof(short2), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_d, d.data(), m * sizeof(double2), cudaMemcpyHostToDevice));
  vectorShuffles<<<1, m>>>(d_f, d_s, d_d);
  getLastCudaError("vectorShuffles failed");
  std::vector<float4> f2(m);
  std::vector<short2> s2(m);
  std::vector<double2> d2(m);
  checkCudaErrors(cudaMemcpy(f2.data(), d_f, m * sizeof(float4), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(s2.data(), d_s, m * sizeof(short2), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(d2.data(), d_d, m * sizeof(double2), cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i) {
    const int down = i % 32 == 31 ? i : i + 1, swap = i ^ 1, last = i / 32 * 32 + 31;
    if (f2[i].x != f[down].x || f2[i].y != f[down].y || f2[i].z != f[down].z ||
        f2[i].w != f[down].w || s2[i].x != s[swap].x || s2[i].y != s[swap].y ||
        d2[i].x != d[last].x || d2[i].y != d[last].y) {
      std::printf("vector shuffles wrong at thread %d\n", i);
      ++failures;
    }
  }
  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_block));
  checkCudaErrors(cudaFree(d_tile));
  checkCudaErrors(cudaFree(d_big));
  checkCudaErrors(cudaFree(d_f));
  checkCudaErrors(cudaFree(d_s));
  checkCudaErrors(cudaFree(d_d));
  std::printf(failures == 0 ? "Test PASSED\n" : "Test FAILED (%d)\n", failures);
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
