// Lesson 10 — the vocabulary-parallel embedding, without MPI: the masked lookup of each
// rank, the sum over ranks checked bit for bit against the one-process combine (lesson 5),
// and each rank's backward against the one-process gradient (lesson 8). The shard ranges
// are tested by vocab_shard_test.cpp; the same sums over real processes (mpirun) by
// tests/parallel/.
#include <cstring>

#include "reference/backward.hpp"
#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"
#include "reference/combine.hpp"
#include "reference/vocab_parallel.hpp"
#include "cuda/combine.hpp"
#include "cuda/vocab_parallel.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

// Every bit equal, not merely close: the sharded result must BE the one-process result.
::testing::AssertionResult bit_identical(const char* what, ConstFloatView got,
                                         ConstFloatView expected) {
  const ::testing::AssertionResult close = all_close(what, got, expected, {});
  if (!close) return close;
  if (std::memcmp(got.data(), expected.data(),
                  sizeof(float) * static_cast<std::size_t>(got.size())) != 0) {
    return ::testing::AssertionFailure()
           << what << ": equal values but different bits (a -0 / +0?)";
  }
  return ::testing::AssertionSuccess();
}

// Rank r's rows of a full table, padding rows left at zero (as each process would hold them).
Matrix shard_of(ConstFloatView wte, const VocabShard& s) {
  Matrix shard(s.rows, wte.cols());
  for (std::int64_t l = 0; l < s.real_rows; ++l) {
    std::memcpy(shard.view().row(l).data(), wte.row(s.first + l).data(),
                sizeof(float) * wte.cols());
  }
  return shard;
}

TEST(VocabParallelLookup, HandWorkedMasking) {
  const VocabShard s = vocab_shard(300, 1, 3);  // rank 1 of 3 owns ids [128, 256)
  Matrix wte_shard(s.rows, 2);
  for (std::int64_t l = 0; l < s.rows; ++l) wte_shard(l, 0) = wte_shard(l, 1) = 128.0f + l;
  const std::int32_t ids[] = {5, 130, 299, 255, 256, 128};
  Matrix out(6, 2);
  for (float& v : out.view().flat()) v = -1.0f;  // every row must be written
  backend::vocab_parallel_lookup(wte_shard, s, TokenIdBatch(ids, 2, 3), out);
  const float expected[] = {0, 0, 130, 130, 0, 0, 255, 255, 0, 0, 128, 128};
  EXPECT_TRUE(all_close("rank 1's part", out.view().flat(), expected, {}, 2));
}

TEST(VocabParallelLookup, IdPastTheRealVocabularyIsAnErrorEvenInsideThePadding) {
  const VocabShard s = vocab_shard(300, 2, 3);  // rows [256, 384): 300..383 are padding
  const Matrix wte_shard(s.rows, 2);
  const std::int32_t ids[] = {257, 300};
  Matrix out(2, 2);
  out(0, 0) = 7.0f;
  EXPECT_INPUT_ERROR(backend::vocab_parallel_lookup(wte_shard, s, TokenIdBatch(ids, 1, 2), out),
                     "token id 300 at position 1 is outside [0, 300)");
  EXPECT_EQ(out(0, 0), 7.0f) << "nothing is written on bad input";
  const std::int32_t negative[] = {-1};
  EXPECT_INPUT_ERROR(
      backend::vocab_parallel_lookup(wte_shard, s, TokenIdBatch(negative, 1, 1), out),
      "token id -1 at position 0 is outside [0, 300)");
}

TEST(VocabParallelLookup, ShardOfTheWrongSizeIsAnError) {
  const VocabShard s = vocab_shard(8449, 0, 2);
  const Matrix wte_shard(4096, 4);
  const std::int32_t ids[] = {1};
  Matrix out(1, 4);
  EXPECT_INPUT_ERROR(backend::vocab_parallel_lookup(wte_shard, s, TokenIdBatch(ids, 1, 1), out),
                     "wte_shard has shape (4096, 4), expected (4352, 4)");
}

// The ids at every rank's edges - first - 1, first, the last real row, first + real_rows - and
// 0 and V - 1, for p = 1 .. 4 on ANDREA-120M's V. Each shard is stored inside a larger buffer
// whose rows before and after it are poisoned: an ownership test one off (id <= first +
// real_rows, or id >= first - 1) reads a poisoned row, not whatever memory holds (often 0).
// The output is framed too: no row is written past it.
std::vector<std::int32_t> edge_ids(std::int64_t vocab_size, std::int64_t ranks) {
  std::vector<std::int32_t> ids = {0, static_cast<std::int32_t>(vocab_size - 1)};
  for (std::int64_t r = 0; r < ranks; ++r) {
    const VocabShard s = vocab_shard(vocab_size, r, ranks);
    for (const std::int64_t id :
         {s.first - 1, s.first, s.first + 1, s.first + s.real_rows - 1, s.first + s.real_rows}) {
      if (id >= 0 && id < vocab_size) ids.push_back(static_cast<std::int32_t>(id));
    }
  }
  return ids;
}

TEST(VocabParallelLookup, IdsAtEveryRanksEdgesReadOnlyTheirShard) {
  const std::int64_t V = andrea_120m.vocab_size, d = 3;
  Matrix wte(V, d);  // row v holds v + 0.25 c: every row tells which id it is
  for (std::int64_t v = 0; v < V; ++v) {
    for (std::int64_t c = 0; c < d; ++c)
      wte(v, c) = static_cast<float>(v) + 0.25f * static_cast<float>(c);
  }
  for (std::int64_t p = 1; p <= 4; ++p) {
    const std::vector<std::int32_t> ids = edge_ids(V, p);
    const auto n = static_cast<std::int64_t>(ids.size());
    for (std::int64_t r = 0; r < p; ++r) {
      const VocabShard s = vocab_shard(V, r, p);
      const Framed shard(shard_of(wte, s));
      Framed out(n, d);
      out.fill(kPoison);
      backend::vocab_parallel_lookup(shard, s, TokenIdBatch(ids.data(), 1, n), out);
      for (std::int64_t q = 0; q < n; ++q) {
        const std::int32_t id = ids[static_cast<std::size_t>(q)];
        const Matrix zero(1, d);
        const ConstFloatView expected =
            s.owns(id) ? ConstFloatView(wte.view().row(id).data(), 1, d) : zero.view();
        const std::string what = "rank " + std::to_string(r) + " of " + std::to_string(p) +
                                 ", row " + std::to_string(q) + " of its part (id " +
                                 std::to_string(id) +
                                 (s.owns(id) ? ", its own)" : ", another rank's: zero)");
        ASSERT_TRUE(all_close(what, ConstFloatView(out.view().row(q).data(), 1, d), expected, {}))
            << "rank " << r << " of " << p << " owns the rows [" << s.first << ", "
            << s.first + s.real_rows << ") of V = " << V << ": id " << id
            << (s.owns(id) ? " is its own, local row " : " is not its own")
            << (s.owns(id) ? std::to_string(id - s.first) : std::string(" (its row is zero)"));
      }
      ASSERT_TRUE(out.untouched("the part")) << "rank " << r << " of " << p;
    }
  }
}

// x = (sum over ranks of the masked lookups) + wpe[t], equal bit for bit to combine_batch,
// and each row non-zero in exactly its owner's part.
void expect_sharded_equals_combine(TokenIdBatch ids, std::int64_t ranks) {
  const Matrix& wte = token_table(andrea_120m);
  const Matrix& wpe = position_table(andrea_120m);
  const std::int64_t rows = ids.size(), d = andrea_120m.d_model;
  Matrix sum(rows, d), part(rows, d);
  for (std::int64_t r = 0; r < ranks; ++r) {
    const VocabShard s = vocab_shard(andrea_120m.vocab_size, r, ranks);
    backend::vocab_parallel_lookup(shard_of(wte, s), s, ids, part);
    for (std::int64_t q = 0; q < rows; ++q) {
      const std::int32_t id = ids.flat()[static_cast<std::size_t>(q)];
      const Matrix zero(1, d);
      ASSERT_TRUE(
          bit_identical("part row", ConstFloatView(part.view().row(q).data(), 1, d),
                        s.owns(id) ? ConstFloatView(wte.view().row(id).data(), 1, d) : zero.view()))
          << "rank " << r << " of " << ranks << ", row " << q << ", id " << id;
      for (std::int64_t c = 0; c < d; ++c) sum(q, c) += part(q, c);  // what MPI_Allreduce does
    }
  }
  Matrix x(rows, d), expected(rows, d);
  for (std::int64_t q = 0; q < rows; ++q) {
    for (std::int64_t c = 0; c < d; ++c) x(q, c) = sum(q, c) + wpe(q % ids.cols(), c);
  }
  backend::combine_batch(wte, wpe, ids, expected);
  EXPECT_TRUE(bit_identical("x", x, expected)) << ranks << " ranks";
}

TEST(VocabParallelLookup, SumOverRanksIsCombineBitForBitOnTheExampleSequence) {
  const std::vector<std::int32_t> ids = example_ids(1024, andrea_120m.vocab_size);
  for (std::int64_t p = 1; p <= 4; ++p)
    expect_sharded_equals_combine(TokenIdBatch(ids.data(), 1, 1024), p);
}

TEST(VocabParallelLookup, SumOverRanksIsCombineBitForBitOnABatch) {
  // Two sequences of 64: the second is the first shifted by one, plus the edge ids 0 and V - 1.
  const std::vector<std::int32_t> seq = example_ids(65, andrea_120m.vocab_size);
  std::vector<std::int32_t> batch(2 * 64);
  for (std::size_t t = 0; t < 64; ++t) batch[t] = seq[t], batch[64 + t] = seq[t + 1];
  batch[10] = 0;
  batch[64 + 20] = 8448;
  for (std::int64_t p = 1; p <= 4; ++p)
    expect_sharded_equals_combine(TokenIdBatch(batch.data(), 2, 64), p);
}

// The backward pass is plain C++ (lesson 8's wte_backward).
ANDREA_ONLY_ON("VocabParallelBackward.*", "cpu");

using backend::vocab_parallel_wte_backward;

TEST(VocabParallelBackward, HandWorkedOwnedPositionsOnly) {
  const VocabShard s = vocab_shard(300, 1, 3);  // ids [128, 256)
  const std::int32_t ids[] = {130, 5, 130, 255};
  const float dout[] = {1, 2, 10, 20, 100, 200, 1000, 2000};
  Matrix dwte(s.rows, 2);
  dwte(2, 0) = 0.5f;  // accumulates
  vocab_parallel_wte_backward(TokenIdBatch(ids, 2, 2), ConstFloatView(dout, 4, 2), s, dwte);
  EXPECT_EQ(dwte(2, 0), 101.5f);  // id 130 = local 2, positions 0 and 2
  EXPECT_EQ(dwte(2, 1), 202.0f);
  EXPECT_EQ(dwte(127, 0), 1000.0f);  // id 255 = local 127
  EXPECT_EQ(dwte(127, 1), 2000.0f);
  double others = 0.0;
  for (std::int64_t l = 0; l < s.rows; ++l) {
    if (l != 2 && l != 127) others += std::abs(dwte(l, 0)) + std::abs(dwte(l, 1));
  }
  EXPECT_EQ(others, 0.0) << "id 5 is rank 0's: rank 1 adds nothing for it";
}

TEST(VocabParallelBackward, BadIdIsAnErrorAndWritesNothing) {
  const VocabShard s = vocab_shard(300, 2, 3);
  const std::int32_t ids[] = {260, 383};  // 383 is a padding row: still outside [0, 300)
  const float dout[] = {1, 1, 1, 1};
  Matrix dwte(s.rows, 2);
  EXPECT_INPUT_ERROR(
      vocab_parallel_wte_backward(TokenIdBatch(ids, 1, 2), ConstFloatView(dout, 2, 2), s, dwte),
      "token id 383 at position 1 is outside [0, 300)");
  EXPECT_EQ(dwte(4, 0), 0.0f);
}

TEST(VocabParallelBackward, IdsAtEveryRanksEdgesWriteOnlyTheirShard) {
  // The same edge ids; each rank's gradient shard inside a poisoned frame: a row written one
  // past the shard, or an id of the next rank's first row taken as this rank's, shows.
  const std::int64_t V = andrea_120m.vocab_size, d = 2;
  for (std::int64_t p = 1; p <= 4; ++p) {
    const std::vector<std::int32_t> ids = edge_ids(V, p);
    const auto n = static_cast<std::int64_t>(ids.size());
    Matrix dout(n, d);
    for (std::int64_t q = 0; q < n; ++q)
      dout(q, 0) = 1.0f + static_cast<float>(q), dout(q, 1) = -2.0f;
    Matrix expected(V, d);
    backend::wte_backward(TokenIdBatch(ids.data(), 1, n), dout, expected);
    for (std::int64_t r = 0; r < p; ++r) {
      const VocabShard s = vocab_shard(V, r, p);
      Framed dwte = Framed::added_into(s.rows, d);
      dwte.fill(0.0f);
      vocab_parallel_wte_backward(TokenIdBatch(ids.data(), 1, n), dout, s, dwte);
      ASSERT_TRUE(dwte.untouched("dwte_shard")) << "rank " << r << " of " << p << " owns ["
                                                << s.first << ", " << s.first + s.real_rows << ")";
      for (std::int64_t l = 0; l < s.rows; ++l) {
        const std::int64_t id = s.first + l;
        const Matrix zero(1, d);
        const ConstFloatView want =
            id < V ? ConstFloatView(expected.view().row(id).data(), 1, d) : zero.view();
        ASSERT_TRUE(all_close("rank " + std::to_string(r) + " of " + std::to_string(p) +
                                  ", dwte_shard row " + std::to_string(l) + " (id " +
                                  std::to_string(id) + ")",
                              ConstFloatView(dwte.view().row(l).data(), 1, d), want, {}))
            << "rank " << r << " of " << p << " owns the rows [" << s.first << ", "
            << s.first + s.real_rows << ")";
      }
    }
  }
}

TEST(VocabParallelBackward, GatheredShardsAreTheOneProcessGradientBitForBit) {
  // Two shifted copies of the example sequence: many ids repeat, so rows sum several terms.
  const std::vector<std::int32_t> seq = example_ids(1024, andrea_120m.vocab_size);
  std::vector<std::int32_t> batch(2 * 1024);
  for (std::size_t t = 0; t < 1024; ++t) batch[t] = seq[t], batch[1024 + t] = seq[(t + 5) % 1024];
  const TokenIdBatch ids(batch.data(), 2, 1024);
  const std::int64_t d = andrea_120m.d_model;
  const Matrix& dout = init_table(Table::token, 2 * 1024, d, 7);  // any finite gradient
  Matrix expected(andrea_120m.vocab_size, d);
  backend::wte_backward(ids, dout, expected);
  for (std::int64_t p = 1; p <= 4; ++p) {
    Matrix gathered(padded_vocab_size(andrea_120m.vocab_size, p), d);
    for (std::int64_t r = 0; r < p; ++r) {
      const VocabShard s = vocab_shard(andrea_120m.vocab_size, r, p);
      FloatView mine(gathered.view().row(s.first).data(), s.rows, d);  // as MPI_Gather places it
      vocab_parallel_wte_backward(ids, dout, s, mine);
    }
    EXPECT_TRUE(bit_identical(
        "dwte", ConstFloatView(gathered.view().data(), andrea_120m.vocab_size, d), expected))
        << p << " ranks";
    const Matrix zero(gathered.rows() - andrea_120m.vocab_size, d);
    EXPECT_TRUE(bit_identical(
        "padding rows of dwte",
        ConstFloatView(gathered.view().row(andrea_120m.vocab_size).data(), zero.rows(), d), zero))
        << p << " ranks";
  }
}

}  // namespace
