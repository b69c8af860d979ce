// Lesson 10 — how the token table is cut across p ranks (vocabulary parallelism).
//
// V is padded up to a multiple of 128 * p, as Megatron-LM does
// (make_vocab_size_divisible_by = 128 times the tensor-parallel size), so every
// rank holds the same number of rows V_p = padded / p and that number is a multiple
// of 128. Rank r owns the rows [r * V_p, (r + 1) * V_p) of the padded table; the rows
// at V and beyond are padding that no valid id ever reads.
//
//   ANDREA-120M, V = 8,449:   p = 1 -> 8,576   p = 2 -> 8,704 (2 x 4,352)
//                             p = 3 -> 8,832 (3 x 2,944)   p = 4 -> 8,704 (4 x 2,176)
#pragma once

#include <cstdint>

namespace andrea {

/// The row multiple per rank: Megatron-LM's default make_vocab_size_divisible_by.
inline constexpr std::int64_t vocab_pad_multiple = 128;

/// V rounded up to a multiple of 128 * ranks (both in [1, 2^31 - 1], where the result
/// cannot overflow; no check here: vocab_shard checks).
/// Source: Megatron-LM, _vocab_size_with_padding (make_vocab_size_divisible_by = 128).
constexpr std::int64_t padded_vocab_size(std::int64_t vocab_size, std::int64_t ranks) {
  const std::int64_t multiple = vocab_pad_multiple * ranks;
  return (vocab_size + multiple - 1) / multiple * multiple;
}

static_assert(padded_vocab_size(8449, 1) == 8576);
static_assert(padded_vocab_size(8449, 2) == 8704);
static_assert(padded_vocab_size(8449, 3) == 8832);
static_assert(padded_vocab_size(8449, 4) == 8704);
static_assert(padded_vocab_size(50257, 8) == 51200);

/// One rank's part of the padded token table.
struct VocabShard {
  std::int64_t vocab_size = 0;    ///< V: valid ids are [0, V), the real vocabulary
  std::int64_t padded_vocab = 0;  ///< V padded to a multiple of 128 * p
  std::int64_t rows = 0;          ///< V_p = padded_vocab / p, the rows every rank holds
  std::int64_t first = 0;         ///< r * V_p, the global id of this rank's row 0
  std::int64_t real_rows = 0;     ///< rows of [first, first + V_p) below V (the rest is padding)

  /// One past the last global row of the shard (padding included).
  constexpr std::int64_t end() const { return first + rows; }
  /// True when global id `id` is one of this rank's real rows.
  constexpr bool owns(std::int64_t id) const { return id >= first && id < first + real_rows; }
};

/// Rank `rank`'s shard of a V-row table cut across `ranks` processes. A pure function
/// of (V, rank, ranks): every rank computes every other rank's range without talking.
/// Throws andrea::InputError when V or ranks is outside [1, 2^31 - 1] (token ids are
/// int32), rank is outside [0, ranks), or the
/// padding leaves the last rank no real row ("4 ranks leave rank 3 no real rows: its
/// rows [384, 512) start at or past vocab_size 300") — checked for every rank alike, so
/// all ranks refuse together. Which p are refused is not monotone: for V = 8,449,
/// p = 11 is (11 x 896 rows, rank 10 starts at 8,960) but p = 12 and p = 67 are not.
VocabShard vocab_shard(std::int64_t vocab_size, std::int64_t rank, std::int64_t ranks);

}  // namespace andrea
