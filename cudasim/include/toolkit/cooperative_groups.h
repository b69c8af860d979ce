// The subset of CUDA's cooperative groups that the CPU execution layer provides (g++ builds
// only; nvcc uses CUDA's own header). Enough for the blog, llm.c and CUDA-samples idioms:
//
//   namespace cg = cooperative_groups;
//   cg::thread_block block = cg::this_thread_block();
//   cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
//   v += warp.shfl_down(v, 16);  warp.sync();  block.sync();  warp.thread_rank();
//   float sum = cg::reduce(warp, v, cg::plus<float>());  // <cooperative_groups/reduce.h>
//   cg::thread_group g = block;  g.sync();  cg::tiled_partition(block, 16);
//   __shared__ cg::block_tile_memory<256> scratch;        // optional from compute capability 8.0
//   auto big = cg::tiled_partition<128>(cg::this_thread_block(scratch));  big.sync(); big.shfl(v,
//   0);
//
// Tiles of 1 to 32 threads run on the warp operations (shuffles of any trivially copyable
// type, float4 or a struct, move 4 bytes at a time as CUDA's do); tiles of 64 to 1024 threads
// (several warps) provide what CUDA gives them: sync, shfl, any, all, thread_rank, num_threads,
// meta_group_rank/size. Grid groups (this_grid, grid sync) and coalesced groups are not
// provided: using them stops compilation with a message saying so.
#pragma once

#include <atomic>
#include <cstring>
#include <source_location>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cudasim/cudasim.hpp"

namespace cooperative_groups {

namespace details {
inline unsigned block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }

// Tiles of several warps meet and exchange values through this per-block memory (what
// block_tile_memory reserves in CUDA). Like a function-scope __shared__ variable it starts each
// block as 0xff bytes, so a counter reads 0xffffffff at first: counts are kept as raw + 1.
struct MultiWarpScratch {
  unsigned arrived[32];                      // per tile of the block: arrivals at its barrier
  alignas(16) unsigned char slot[1024][32];  // per thread: the value it offers to a shfl
};
inline thread_local MultiWarpScratch t_scratch;
inline MultiWarpScratch& scratch() {
  ::cudasim::detail::poison_shared(&t_scratch, sizeof t_scratch);  // 0xff at each block's start
  return t_scratch;
}

/// The barrier of a tile of `size` threads (a multiple of 32) that starts at block rank `base`:
/// each thread counts itself in, then its warp waits, one scheduling round at a time, until the
/// tile's last thread has come. A thread that never comes fails the launch instead of hanging.
inline void multi_warp_sync(unsigned base, unsigned size, std::source_location where) {
  const unsigned n = block_size();
  if (size >= n && base == 0) return __syncthreads(where);  // the tile is the whole block
  const unsigned members = size < n - base ? size : n - base;
  std::atomic_ref<unsigned> arrived(scratch().arrived[base / size]);
  const unsigned ticket = arrived.fetch_add(1, std::memory_order_acq_rel) + 1u;  // raw + 1
  const unsigned target = (ticket / members + 1) * members;
  if (ticket + 1 == target) ::cudasim::detail::tile_barrier_opened(base, members);  // the last
  for (long round = 0;
       !__all_sync(~0u, arrived.load(std::memory_order_acquire) + 1u >= target, where); ++round) {
    if (round > 100000) {
      throw std::runtime_error("thread_block_tile<" + std::to_string(size) + ">::sync() at line " +
                               std::to_string(where.line()) +
                               ": not every thread of the tile reached it");
    }
  }
}

// A shuffle of any trivially copyable type, 4 bytes at a time (as CUDA's cooperative groups
// move a float4 or a struct); `lane_shuffle` moves one 32-bit word.
template <class T, class Shuffle>
T shuffle_words(T value, Shuffle lane_shuffle) {
  static_assert(std::is_trivially_copyable_v<T>,
                "cooperative groups: only trivially copyable types can be shuffled");
  unsigned words[(sizeof(T) + 3) / 4] = {};
  std::memcpy(words, &value, sizeof(T));
  for (unsigned& w : words) w = lane_shuffle(w);
  std::memcpy(&value, words, sizeof(T));
  return value;
}
template <class T>
constexpr bool kScalarShuffle = ::cudasim::detail::Shufflable<T>;
}  // namespace details

/// Any group of threads, its size known at run time: a block, or a tile of one.
class thread_group {
 public:
  void sync(std::source_location where = std::source_location::current()) const {
    if (tile_ == 0) {
      __syncthreads(where);
    } else if (tile_ <= 32) {
      __syncwarp(0xffffffffu, where);
    } else {
      details::multi_warp_sync(details::block_rank() / tile_ * tile_, tile_, where);
    }
  }
  unsigned long long num_threads() const { return tile_ == 0 ? details::block_size() : tile_; }
  unsigned long long size() const { return num_threads(); }
  unsigned long long thread_rank() const {
    return tile_ == 0 ? details::block_rank() : details::block_rank() % tile_;
  }

 protected:
  explicit thread_group(unsigned tile) : tile_(tile) {}
  friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size);
  unsigned tile_;  // 0: the whole block; else threads in each tile
};
inline void sync(const thread_group& group) { group.sync(); }

template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {  // nothing to hold: the layer keeps tiles' scratch itself
};

/// The threads of the calling block.
class thread_block : public thread_group {
 public:
  thread_block() : thread_group(0) {}
  void sync(std::source_location where = std::source_location::current()) const {
    __syncthreads(where);
  }
  unsigned long long thread_rank() const { return details::block_rank(); }
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const { return details::block_size(); }
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return {}; }
template <unsigned MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return {};
}
inline void sync(const thread_block& block) { block.sync(); }

/// A tile whose size is known at run time (1 to 32 threads, a power of two), as CUDA allows.
inline thread_group tiled_partition(const thread_group&, unsigned tile_size) {
  if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)) != 0) {
    throw std::runtime_error("cooperative_groups::tiled_partition(parent, " +
                             std::to_string(tile_size) +
                             "): the size must be a power of two from 1 to 32");
  }
  return thread_group(tile_size);
}

/// kSize consecutive threads of a block, in thread_rank order: a warp or a part of one
/// (kSize <= 32), or several warps (64 to 1024).
template <unsigned kSize, class ParentT = void>
class thread_block_tile : public thread_group {
  static_assert(kSize >= 1 && kSize <= 1024 && (kSize & (kSize - 1)) == 0,
                "cudasim: tiled_partition<N> supports N = 1, 2, 4, ..., 1024");
  static constexpr bool kMultiWarp = kSize > 32;

 public:
  thread_block_tile() : thread_group(kSize) {}
  template <class OtherParent>
  thread_block_tile(const thread_block_tile<kSize, OtherParent>&) : thread_group(kSize) {}

  static constexpr unsigned num_threads() { return kSize; }
  static constexpr unsigned size() { return kSize; }
  unsigned thread_rank() const { return rank() % kSize; }
  unsigned meta_group_rank() const { return rank() / kSize; }
  unsigned meta_group_size() const { return (details::block_size() + kSize - 1) / kSize; }
  void sync(std::source_location where = std::source_location::current()) const {
    if constexpr (kMultiWarp) {
      details::multi_warp_sync(rank() / kSize * kSize, kSize, where);
    } else {
      __syncwarp(0xffffffffu, where);
    }
  }
  template <class T>
  T shfl(T v, int src, std::source_location w = std::source_location::current()) const {
    if constexpr (kMultiWarp) {
      return multi_warp_shfl(v, static_cast<unsigned>(src) % kSize, w);
    } else if constexpr (details::kScalarShuffle<T>) {
      return __shfl_sync(0xffffffffu, v, src, kSize, w);
    } else {
      return details::shuffle_words(v, [&](unsigned x) { return shfl(x, src, w); });
    }
  }
  template <class T>
  T shfl_down(T v, unsigned delta, std::source_location w = std::source_location::current()) const
      requires(!kMultiWarp) {
    if constexpr (details::kScalarShuffle<T>) {
      return __shfl_down_sync(0xffffffffu, v, delta, kSize, w);
    } else {
      return details::shuffle_words(v, [&](unsigned x) { return shfl_down(x, delta, w); });
    }
  }
  template <class T>
  T shfl_up(T v, unsigned delta, std::source_location w = std::source_location::current()) const
      requires(!kMultiWarp) {
    if constexpr (details::kScalarShuffle<T>) {
      return __shfl_up_sync(0xffffffffu, v, delta, kSize, w);
    } else {
      return details::shuffle_words(v, [&](unsigned x) { return shfl_up(x, delta, w); });
    }
  }
  template <class T>
  T shfl_xor(T v, int mask, std::source_location w = std::source_location::current()) const
      requires(!kMultiWarp) {
    if constexpr (details::kScalarShuffle<T>) {
      return __shfl_xor_sync(0xffffffffu, v, mask, kSize, w);
    } else {
      return details::shuffle_words(v, [&](unsigned x) { return shfl_xor(x, mask, w); });
    }
  }
  // Votes over this tile's lanes only.
  unsigned ballot(int p, std::source_location w = std::source_location::current()) const
      requires(!kMultiWarp) {
    const unsigned all = __ballot_sync(0xffffffffu, p, w);
    return (all >> (rank() % 32 / kSize * kSize)) & lanes();
  }
  bool any(int p, std::source_location w = std::source_location::current()) const {
    if constexpr (kMultiWarp) {
      return multi_warp_count(p != 0, w) > 0;
    } else {
      return ballot(p, w) != 0;
    }
  }
  bool all(int p, std::source_location w = std::source_location::current()) const {
    if constexpr (kMultiWarp) {
      return multi_warp_count(p != 0, w) == kSize;
    } else {
      return ballot(p, w) == lanes();
    }
  }

 private:
  static unsigned rank() { return details::block_rank(); }
  static constexpr unsigned lanes() { return kSize == 32 ? ~0u : (1u << (kSize % 32)) - 1; }
  // Several warps: each thread offers its value in its slot; after the tile's barrier each
  // reads its source's; a second barrier keeps the slots until every thread has read.
  template <class T>
  T multi_warp_shfl(T v, unsigned src, std::source_location w) const {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 32,
                  "cudasim: tiles of more than 32 threads shuffle trivially copyable values of "
                  "at most 32 bytes");
    details::MultiWarpScratch& s = details::scratch();
    std::memcpy(s.slot[rank()], &v, sizeof v);
    sync(w);
    T out;
    std::memcpy(&out, s.slot[rank() / kSize * kSize + src], sizeof out);
    sync(w);
    return out;
  }
  unsigned multi_warp_count(bool p, std::source_location w) const {
    unsigned count = 0;
    const unsigned base = rank() / kSize * kSize;
    details::MultiWarpScratch& s = details::scratch();
    s.slot[rank()][0] = p;
    sync(w);
    for (unsigned i = 0; i < kSize && base + i < details::block_size(); ++i) {
      count += s.slot[base + i][0];
    }
    sync(w);
    return count;
  }
};

template <unsigned kSize, class ParentT>
thread_block_tile<kSize, ParentT> tiled_partition(const ParentT&) {
  return {};
}
template <unsigned kSize, class ParentT>
void sync(const thread_block_tile<kSize, ParentT>& tile) {
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
                "execution layer (cudasim); see cudasim/README.md");
  return {};
}
CUDASIM_UNSUPPORTED(coalesced_threads, "cooperative_groups::coalesced_threads")

}  // namespace cooperative_groups
