// What catches a weak solution: sizes that are a multiple of no block size, data drawn at
// random, the last token id V - 1, and outputs filled beforehand with a poison value that no
// right answer holds, so that an element nobody wrote, or one written twice by a neighbour,
// shows. Used by the *Awkward* test of every lesson.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/tensor.hpp"

namespace andrea::testing {

/// The poison: a NaN, unequal to every value, so a left-over element fails any comparison.
inline const float kPoison = std::numeric_limits<float>::quiet_NaN();

/// A vocabulary (prime) and widths: 259 (odd: the scalar path) and 772 (a multiple of 4 for
/// float4, but not of 32 x 4 = 128); rows: 37. None is a multiple of 32, 256 or 1024.
inline constexpr std::int64_t kAwkwardVocab = 1031;
inline constexpr std::int64_t kAwkwardRows = 37;
inline constexpr std::int64_t kAwkwardWidths[] = {259, 772};

/// n token ids in [0, vocab_size), drawn from a fixed seed: the first is 0, the last is
/// vocab_size - 1 (the last row of the table), the others random.
inline std::vector<std::int32_t> random_ids(std::int64_t n, std::int64_t vocab_size,
                                            std::uint32_t seed = 2024) {
  std::mt19937 draw(seed);
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
  for (auto& id : ids)
    id = static_cast<std::int32_t>(draw() % static_cast<std::uint32_t>(vocab_size));
  ids.front() = 0;
  ids.back() = static_cast<std::int32_t>(vocab_size - 1);
  return ids;
}

/// A (rows, cols) matrix every element of which is the poison.
inline Matrix poisoned(std::int64_t rows, std::int64_t cols) {
  Matrix m(rows, cols);
  for (float& x : m.view().flat()) x = kPoison;
  return m;
}

}  // namespace andrea::testing
