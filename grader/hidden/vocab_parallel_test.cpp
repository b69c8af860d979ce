// Lesson 10 — vocabulary-parallel embedding, hidden tests: each rank's masked lookup (and, in
// C++, its backward) on tables, ids and rank counts drawn from the instructor's seed, compared
// bit for bit with the course's solution.
#include <cstring>

#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/vocab_parallel.hpp"
#else
#include "reference/vocab_parallel.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

// Rank r's rows of a full table, padding rows left at zero (as each process holds them).
Matrix shard_of(ConstFloatView wte, const VocabShard& s) {
  Matrix shard(s.rows, wte.cols());
  for (std::int64_t l = 0; l < s.real_rows; ++l) {
    std::memcpy(shard.view().row(l).data(), wte.row(s.first + l).data(),
                sizeof(float) * wte.cols());
  }
  return shard;
}

// `ranks`, or fewer where the last rank would hold padding rows only (vocab_shard refuses that).
std::int64_t ranks_for(std::int64_t vocab_size, std::int64_t ranks) {
  for (; ranks > 1; --ranks) {
    try {
      vocab_shard(vocab_size, ranks - 1, ranks);
      break;
    } catch (const InputError&) {}
  }
  return ranks;
}

// Every rank's part of the lookup of `ids` (B, n) on `ranks` ranks.
void expect_every_rank(const std::string& what, ConstFloatView wte,
                       const std::vector<std::int32_t>& ids, std::int64_t batch,
                       std::int64_t ranks) {
  const TokenIdBatch b(ids.data(), batch, static_cast<std::int64_t>(ids.size()) / batch);
  for (std::int64_t r = 0; r < ranks; ++r) {
    const VocabShard s = vocab_shard(wte.rows(), r, ranks);
    const Matrix shard = shard_of(wte, s);
    Matrix got = poisoned(b.size(), wte.cols()), expected(b.size(), wte.cols());
    backend::vocab_parallel_lookup(shard, s, b, got);
    solution::vocab_parallel_lookup(shard, s, b, expected);
    EXPECT_TRUE(same_bits(what + ", rank " + std::to_string(r) + " of " + std::to_string(ranks),
                          got, expected));
  }
}

TEST(HiddenVocabParallel, LookupAtAndrea120mShapes) {
  Draw draw("vocab-parallel/andrea-120m");
  const Matrix wte = draw.table_with_specials(8449, 768);
  const std::int64_t ranks = draw.between(2, 4);  // 8449 rows: 4 ranks own real rows
  expect_every_rank("part of x for T = 1024 ids", wte, draw.ids(1024, 8449), 1, ranks);
  const std::int64_t batch = draw.between(2, 3), n = draw.not_multiple_of_32(1, 300),
                     more_ranks = draw.between(1, 4);
  expect_every_rank("part of x for a batch", wte, draw.ids(batch * n, 8449), batch, more_ranks);
}

TEST(HiddenVocabParallel, LookupAtAwkwardShapes) {
  Draw draw("vocab-parallel/awkward");
  for (int i = 0; i < 3; ++i) {
    const std::int64_t V = draw.between(1, 700), d = draw.odd(1, 301), batch = draw.between(1, 3);
    const std::int64_t n = draw.not_multiple_of_32(1, 200),
                       ranks = ranks_for(V, draw.between(1, 5));
    const Matrix wte = draw.table_with_specials(V, d);
    expect_every_rank("part of x (V " + std::to_string(V) + ")", wte, draw.ids(batch * n, V), batch,
                      ranks);
  }
}

TEST(HiddenVocabParallel, IdPastTheVocabularyIsRefusedAndNothingWritten) {
  Draw draw("vocab-parallel/bad");
  const std::int64_t V = draw.between(2, 700), d = draw.odd(1, 31),
                     ranks = ranks_for(V, draw.between(1, 4));
  const std::int64_t n = draw.between(1, 100);
  const VocabShard s = vocab_shard(V, draw.between(0, ranks - 1), ranks);
  const Matrix shard = draw.table(s.rows, d), before = draw.table(n, d);
  std::vector<std::int32_t> ids = draw.ids(n, V);
  ids[static_cast<std::size_t>(draw.between(0, n - 1))] =
      static_cast<std::int32_t>(V + draw.between(0, 3));
  const TokenIdBatch b(ids.data(), 1, n);
  Matrix got = before, scratch = before;
  EXPECT_TRUE(same_error(
      "vocab_parallel_lookup with an id past V",
      [&] { backend::vocab_parallel_lookup(shard, s, b, got); },
      [&] { solution::vocab_parallel_lookup(shard, s, b, scratch); }));
  EXPECT_TRUE(same_bits("out after a refused call", got, before));
}

#if !defined(ANDREA_BACKEND_CUDA)  // the sharded backward is plain C++ (lesson 8's wte_backward)

TEST(HiddenVocabParallel, BackwardOfEveryRank) {
  Draw draw("vocab-parallel/backward");
  struct Shape {
    std::int64_t vocab_size, d_model, batch, n;
  };
  const Shape shapes[] = {{8449, 768, 2, 1024},
                          {draw.between(1, 700), draw.odd(1, 301), draw.between(1, 3),
                           draw.not_multiple_of_32(1, 200)}};
  for (const Shape& shape : shapes) {
    const std::vector<std::int32_t> ids = draw.ids(shape.batch * shape.n, shape.vocab_size);
    const TokenIdBatch b(ids.data(), shape.batch, shape.n);
    const Matrix dout = draw.table(b.size(), shape.d_model);
    const std::int64_t ranks = ranks_for(shape.vocab_size, draw.between(1, 4));
    for (std::int64_t r = 0; r < ranks; ++r) {
      const VocabShard s = vocab_shard(shape.vocab_size, r, ranks);
      Matrix got = draw.table(s.rows, shape.d_model), expected = got;  // the gradients accumulate
      backend::vocab_parallel_wte_backward(b, dout, s, got);
      solution::vocab_parallel_wte_backward(b, dout, s, expected);
      EXPECT_TRUE(same_bits("dwte shard (V " + std::to_string(shape.vocab_size) + "), rank " +
                                std::to_string(r) + " of " + std::to_string(ranks),
                            got, expected));
    }
  }
}

#endif

}  // namespace
