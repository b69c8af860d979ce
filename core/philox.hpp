// Philox4x32-10, the counter-based random number generator of Salmon, Moraes,
// Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC'11). It is
// the generator behind cuRAND's and PyTorch-CUDA's Philox. A counter and a key
// go in, four 32-bit words come out: no state, so element i of a table can be
// drawn by any thread, on any device, in any order.
#pragma once

#include <cstdint>

#include "core/hd.hpp"

namespace andrea {

struct Philox4x32 {
  std::uint32_t v[4];
};

/// Philox4x32-10 of `counter` under `key` (Random123 reference constants).
/// Known answers: key (0,0), counter (0,0,0,0) -> 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
ANDREA_HD inline Philox4x32 philox4x32_10(Philox4x32 counter, std::uint32_t key0,
                                          std::uint32_t key1) {
  constexpr std::uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  std::uint32_t* c = counter.v;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{kMul0} * c[0];
    const std::uint64_t p1 = std::uint64_t{kMul1} * c[2];
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32),
                        lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32),
                        lo1 = static_cast<std::uint32_t>(p1);
    const std::uint32_t next[4] = {hi1 ^ c[1] ^ key0, lo1, hi0 ^ c[3] ^ key1, lo0};
    for (int k = 0; k < 4; ++k) c[k] = next[k];
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

}  // namespace andrea
