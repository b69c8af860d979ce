// Lesson 5 — combine, x[t] = wte[ids[t]] + wpe[t], hidden tests: tables, ids and batches drawn
// from the instructor's seed, compared bit for bit with the course's solution (each element is
// one float32 addition).
#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/combine.hpp"
#else
#include "reference/combine.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

void expect_combine(const std::string& what, ConstFloatView wte, ConstFloatView wpe,
                    const std::vector<std::int32_t>& ids) {
  const auto n = static_cast<std::int64_t>(ids.size());
  Matrix got = poisoned(n, wte.cols()), expected(n, wte.cols());
  backend::combine(wte, wpe, ids, got);
  solution::combine(wte, wpe, ids, expected);
  EXPECT_TRUE(same_bits(what, got, expected));
}

void expect_combine_batch(const std::string& what, ConstFloatView wte, ConstFloatView wpe,
                          const std::vector<std::int32_t>& ids, std::int64_t batch) {
  const TokenIdBatch b(ids.data(), batch, static_cast<std::int64_t>(ids.size()) / batch);
  Matrix got = poisoned(b.size(), wte.cols()), expected(b.size(), wte.cols());
  backend::combine_batch(wte, wpe, b, got);
  solution::combine_batch(wte, wpe, b, expected);
  EXPECT_TRUE(
      same_bits(what + " (B = " + std::to_string(batch) + ", n = " + std::to_string(b.cols()) + ")",
                got, expected));
}

TEST(HiddenCombine, Andrea120mShapes) {
  Draw draw("combine/andrea-120m");
  const Matrix wte = draw.table_with_specials(8449, 768), wpe = draw.table_with_specials(1024, 768);
  expect_combine("x for T = 1024 ids", wte, wpe, draw.ids(1024, 8449));
  const std::int64_t batch = draw.between(2, 4), n = draw.not_multiple_of_32(1, 1023);
  expect_combine_batch("x of a batch", wte, wpe, draw.ids(batch * n, 8449), batch);
  expect_combine_batch("x of a batch", wte, wpe, draw.ids(2 * 1024, 8449), 2);
}

TEST(HiddenCombine, AwkwardShapes) {
  Draw draw("combine/awkward");
  struct Shape {
    std::int64_t vocab_size, context_length, d_model;
  };
  const Shape shapes[] = {
      {draw.between(2, 3000), draw.not_multiple_of_32(33, 1100), draw.odd(1, 799)},
      {draw.between(2, 3000), draw.not_multiple_of_32(2, 300), 4 * draw.odd(1, 199)},
      {1, 1, 1}};
  for (const Shape& s : shapes) {
    const Matrix wte = draw.table_with_specials(s.vocab_size, s.d_model);
    const Matrix wpe = draw.table_with_specials(s.context_length, s.d_model);
    const std::string what = "x (V " + std::to_string(s.vocab_size) + ", T " +
                             std::to_string(s.context_length) + ", d_model " +
                             std::to_string(s.d_model) + ")";
    expect_combine(what, wte, wpe,
                   draw.ids(s.context_length, s.vocab_size));  // n = T: the last position too
    const std::int64_t batch = draw.between(1, 5), n = draw.between(1, s.context_length);
    expect_combine_batch(what, wte, wpe, draw.ids(batch * n, s.vocab_size), batch);
  }
}

TEST(HiddenCombine, BadIdInABatchIsRefusedAndNothingWritten) {
  Draw draw("combine/bad-id");
  const std::int64_t V = draw.between(2, 500), T = draw.between(2, 100), d = draw.odd(1, 99);
  const std::int64_t batch = draw.between(1, 4), n = draw.between(1, T);
  const Matrix wte = draw.table(V, d), wpe = draw.table(T, d), before = draw.table(batch * n, d);
  std::vector<std::int32_t> ids = draw.ids(batch * n, V);
  ids[static_cast<std::size_t>(draw.between(0, batch * n - 1))] =
      static_cast<std::int32_t>(draw.between(0, 1) ? V + draw.between(0, 5) : -draw.between(1, 5));
  const TokenIdBatch b(ids.data(), batch, n);
  Matrix got = before, scratch = before;
  EXPECT_TRUE(same_error(
      "combine_batch with a bad id", [&] { backend::combine_batch(wte, wpe, b, got); },
      [&] { solution::combine_batch(wte, wpe, b, scratch); }));
  EXPECT_TRUE(same_bits("out after a refused call", got, before));
}

}  // namespace
