// The subset of CUDA's cooperative groups that the CPU execution layer provides (g++ builds
// only; nvcc uses CUDA's own header). Enough for the blog and llm.c idioms:
//
//   namespace cg = cooperative_groups;
//   cg::thread_block block = cg::this_thread_block();
//   cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
//   v += warp.shfl_down(v, 16);  warp.sync();  block.sync();  warp.thread_rank();
//   float sum = cg::reduce(warp, v, cg::plus<float>());  // <cooperative_groups/reduce.h>
//
// Tiles of 1, 2, 4, 8, 16 or 32 threads; grid groups (this_grid, grid sync) and coalesced
// groups are not provided: using them stops compilation with a message saying so.
#pragma once

#include "cuda/sim/cudasim.hpp"

namespace cooperative_groups {

/// The threads of the calling block.
class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned long long thread_rank() const {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const {
    return static_cast<unsigned long long>(blockDim.x) * blockDim.y * blockDim.z;
  }
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return {}; }
inline void sync(const thread_block& block) { block.sync(); }

/// kSize consecutive threads of a block (a warp, or a part of one), in thread_rank order.
template <unsigned kSize>
class thread_block_tile {
  static_assert(kSize >= 1 && kSize <= 32 && (kSize & (kSize - 1)) == 0,
                "cudasim: tiled_partition<N> supports N = 1, 2, 4, 8, 16 or 32");

 public:
  static constexpr unsigned num_threads() { return kSize; }
  static constexpr unsigned size() { return kSize; }
  unsigned thread_rank() const { return rank() % kSize; }
  unsigned meta_group_rank() const { return rank() / kSize; }
  unsigned meta_group_size() const {
    return static_cast<unsigned>((this_thread_block().size() + kSize - 1) / kSize);
  }
  void sync(std::source_location where = std::source_location::current()) const {
    __syncwarp(0xffffffffu, where);
  }
  template <class T>
  T shfl(T v, int src, std::source_location w = std::source_location::current()) const {
    return __shfl_sync(0xffffffffu, v, src, kSize, w);
  }
  template <class T>
  T shfl_down(T v, unsigned delta, std::source_location w = std::source_location::current()) const {
    return __shfl_down_sync(0xffffffffu, v, delta, kSize, w);
  }
  template <class T>
  T shfl_up(T v, unsigned delta, std::source_location w = std::source_location::current()) const {
    return __shfl_up_sync(0xffffffffu, v, delta, kSize, w);
  }
  template <class T>
  T shfl_xor(T v, int mask, std::source_location w = std::source_location::current()) const {
    return __shfl_xor_sync(0xffffffffu, v, mask, kSize, w);
  }
  // Votes over this tile's lanes only.
  unsigned ballot(int p, std::source_location w = std::source_location::current()) const {
    const unsigned all = __ballot_sync(0xffffffffu, p, w);
    const unsigned lanes = kSize == 32 ? ~0u : (1u << (kSize % 32)) - 1;
    return (all >> (threadIdx_in_warp() / kSize * kSize)) & lanes;
  }
  bool any(int p, std::source_location w = std::source_location::current()) const {
    return ballot(p, w) != 0;
  }
  bool all(int p, std::source_location w = std::source_location::current()) const {
    const unsigned lanes = kSize == 32 ? ~0u : (1u << (kSize % 32)) - 1;
    return ballot(p, w) == lanes;
  }

 private:
  static unsigned rank() { return static_cast<unsigned>(this_thread_block().thread_rank()); }
  static unsigned threadIdx_in_warp() { return rank() % 32; }
};

template <unsigned kSize>
thread_block_tile<kSize> tiled_partition(const thread_block&) {
  return {};
}
template <unsigned kSize>
void sync(const thread_block_tile<kSize>& tile) {
  tile.sync();
}

// Grid-wide groups need every block of the grid resident at once; blocks run a few at a time
// here. Declared (so that `grid.sync()` parses) but refused at compile time.
struct grid_group {
  void sync() const;
  unsigned long long thread_rank() const;
  unsigned long long size() const;
  unsigned long long num_threads() const;
};
template <class... A>
grid_group this_grid(A...) {
  static_assert(::cudasim::detail::Unsupported<A...>::value,
                "cooperative_groups::this_grid (grid-wide groups) is not supported by the CPU "
                "execution layer (cudasim); see cuda/sim/README.md");
  return {};
}
CUDASIM_UNSUPPORTED(coalesced_threads, "cooperative_groups::coalesced_threads")

}  // namespace cooperative_groups
