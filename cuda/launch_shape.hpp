// The block shape of the kernels that give one block to each row and let its threads stride
// over the row's columns (lookup, position, combine, the position schemes, training's row
// kernels, the masked lookup).
#pragma once

#include <algorithm>
#include <cstdint>

namespace andrea::cuda {

/// Threads per block for a row of `width` elements walked with a block-stride loop
/// (`for (c = threadIdx.x; c < width; c += blockDim.x)`): `width` rounded up to a whole
/// number of warps (32 threads), at most 256, so a narrow row leaves no warp idle and a wide
/// one is covered by the loop. 0 for width 0 (the checks refuse an empty row before).
inline unsigned threads_per_row(std::int64_t width) {
  return static_cast<unsigned>(std::min<std::int64_t>(256, (width + 31) / 32 * 32));
}

}  // namespace andrea::cuda
