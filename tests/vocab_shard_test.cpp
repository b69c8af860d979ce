// Lesson 10 — how the token table is cut across ranks (core/vocab_shard.hpp, in
// andrea_core): the padding to 128 * p and the row ranges, with the figures for
// ANDREA-120M, and the refusal of a p that leaves a rank only padding. Not graded: the
// student does not write this code (label L10-cpu, name prefix L10-shard/).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/vocab_shard.hpp"

namespace {

using namespace andrea;

#define EXPECT_INPUT_ERROR(statement, text) \
  EXPECT_THAT([&] { statement; },           \
              ::testing::ThrowsMessage<::andrea::InputError>(::testing::HasSubstr(text)))

TEST(VocabShard, PaddingAndRangesForAndrea120m) {
  struct Row {
    std::int64_t p, padded, rows, last_first, last_real;
  };
  const Row rows[] = {{1, 8576, 8576, 0, 8449},      // 8,449 = 7 * 17 * 71 -> 67 * 128
                      {2, 8704, 4352, 4352, 4097},   // a multiple of 256
                      {3, 8832, 2944, 5888, 2561},   // a multiple of 384
                      {4, 8704, 2176, 6528, 1921}};  // a multiple of 512
  for (const Row& r : rows) {
    const VocabShard last = vocab_shard(8449, r.p - 1, r.p);
    EXPECT_EQ(last.padded_vocab, r.padded) << "p = " << r.p;
    EXPECT_EQ(last.rows, r.rows) << "p = " << r.p;
    EXPECT_EQ(last.first, r.last_first) << "p = " << r.p;
    EXPECT_EQ(last.real_rows, r.last_real) << "p = " << r.p;
    EXPECT_EQ(last.end(), r.padded) << "p = " << r.p;
    for (std::int64_t rank = 0; rank + 1 < r.p; ++rank) {  // the others: only real rows
      const VocabShard s = vocab_shard(8449, rank, r.p);
      EXPECT_EQ(s.first, rank * r.rows);
      EXPECT_EQ(s.real_rows, r.rows) << "rank " << rank << " of " << r.p;
    }
  }
}

TEST(VocabShard, OwnsOnlyRealRowsOfItsRange) {
  const VocabShard s = vocab_shard(8449, 3, 4);  // rows [6528, 8704), real up to 8449
  EXPECT_FALSE(s.owns(6527));
  EXPECT_TRUE(s.owns(6528));
  EXPECT_TRUE(s.owns(8448));
  EXPECT_FALSE(s.owns(8449));  // padding: never read
  EXPECT_FALSE(s.owns(-1));
}

TEST(VocabShard, RefusesRanksThatLeaveARankNoRealRows) {
  // V = 300: 3 ranks hold 128 rows each (384), the last one has 300 - 256 = 44 real rows;
  // 4 ranks would pad to 512 and give rank 3 the rows [384, 512), all padding.
  EXPECT_EQ(vocab_shard(300, 2, 3).real_rows, 44);
  EXPECT_INPUT_ERROR(vocab_shard(300, 0, 4),
                     "4 ranks leave rank 3 no real rows: its rows [384, 512) start at or past "
                     "vocab_size 300");
  EXPECT_EQ(vocab_shard(8449, 66, 67).real_rows, 1);  // 67 * 128 = 8,576: one real row left
  EXPECT_INPUT_ERROR(vocab_shard(8449, 0, 68), "68 ranks leave rank 67 no real rows");
  // Not monotone in p: 11 ranks pad 8,449 to 9,856 (896 rows each), rank 10 starts at 8,960.
  EXPECT_INPUT_ERROR(vocab_shard(8449, 0, 11),
                     "11 ranks leave rank 10 no real rows: its rows [8960, 9856) start at or past "
                     "vocab_size 8449");
  EXPECT_EQ(vocab_shard(8449, 11, 12).real_rows, 8449 - 11 * 768);
  EXPECT_INPUT_ERROR(vocab_shard(8449, 4, 4), "rank 4 is outside [0, 4)");
  EXPECT_INPUT_ERROR(vocab_shard(8449, 0, 0), "0 ranks: at least 1 is required");
  EXPECT_INPUT_ERROR(vocab_shard(0, 0, 1), "vocab_size 0 must be at least 1");
}

TEST(VocabShard, RefusesSizesWhosePaddingWouldOverflow) {
  // Rounding V up to a multiple of 128 p overflowed int64 (undefined behaviour) near 2^63.
  EXPECT_INPUT_ERROR(vocab_shard(9223372036854775807, 0, 1),
                     "vocab_size 9223372036854775807 is more than 2147483647: token ids are int32");
  EXPECT_INPUT_ERROR(vocab_shard(2147483648, 0, 2),
                     "vocab_size 2147483648 is more than 2147483647");
  EXPECT_INPUT_ERROR(vocab_shard(8449, 0, 9223372036854775807),
                     "9223372036854775807 ranks: at most 2147483647");
  const VocabShard s = vocab_shard(2147483647, 1, 2);  // the largest V: padded to 2^31, no overflow
  EXPECT_EQ(s.padded_vocab, 2147483648);
  EXPECT_EQ(s.first, 1073741824);
  EXPECT_EQ(s.real_rows, 1073741823);
}

}  // namespace
