// cooperative_groups::reduce over a tile, with plus, less and greater (CUDA 11's
// <cooperative_groups/reduce.h>), for the CPU execution layer. Every lane gets the result.
#pragma once

#include <cooperative_groups.h>

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T>
struct less {  // the smaller value: a minimum reduction
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct greater {  // the larger value: a maximum reduction
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

/// Combines `value` over the tile's lanes with op: within each warp a butterfly of shfl_xor,
/// log2(32) steps; a tile of several warps then folds its warps' results in warp order.
template <unsigned kSize, class ParentT, class T, class Op>
T reduce(const thread_block_tile<kSize, ParentT>& tile, T value, Op op) {
  constexpr unsigned kWarp = kSize < 32 ? kSize : 32;
  const thread_block_tile<kWarp> warp;
  for (unsigned mask = kWarp / 2; mask > 0; mask /= 2) {
    value = op(value, warp.shfl_xor(value, static_cast<int>(mask)));
  }
  if constexpr (kSize > 32) {
    T total = tile.shfl(value, 0);
    for (unsigned w = 1; w < kSize / 32; ++w)
      total = op(total, tile.shfl(value, static_cast<int>(w * 32)));
    value = total;
  }
  return value;
}

}  // namespace cooperative_groups
