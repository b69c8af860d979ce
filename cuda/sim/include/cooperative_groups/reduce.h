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

/// Combines `value` over the tile's lanes with op: a butterfly of shfl_xor, log2(kSize) steps.
template <unsigned kSize, class T, class Op>
T reduce(const thread_block_tile<kSize>& tile, T value, Op op) {
  for (unsigned mask = kSize / 2; mask > 0; mask /= 2) {
    value = op(value, tile.shfl_xor(value, static_cast<int>(mask)));
  }
  return value;
}

}  // namespace cooperative_groups
