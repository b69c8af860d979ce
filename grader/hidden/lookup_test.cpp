// Lesson 1 — lookup, hidden tests: tables and ids drawn from the instructor's seed at
// ANDREA-120M's shapes and at awkward ones, each output compared bit for bit with the course's
// solution run on the same input.
#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/lookup.hpp"
#else
#include "reference/lookup.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

void expect_lookup(const std::string& what, ConstFloatView wte,
                   const std::vector<std::int32_t>& ids) {
  const auto n = static_cast<std::int64_t>(ids.size());
  Matrix got = poisoned(n, wte.cols()), expected(n, wte.cols());
  backend::lookup(wte, ids, got);
  solution::lookup(wte, ids, expected);
  EXPECT_TRUE(same_bits(what, got, expected));
}

TEST(HiddenLookup, Andrea120mShapes) {
  Draw draw("lookup/andrea-120m");
  const Matrix wte = draw.table_with_specials(8449, 768);
  expect_lookup("out for T = 1024 ids", wte, draw.ids(1024, 8449));
  const std::int64_t n = draw.not_multiple_of_32(1, 1023);
  expect_lookup("out for " + std::to_string(n) + " ids", wte, draw.ids(n, 8449));
}

TEST(HiddenLookup, AwkwardShapes) {
  Draw draw("lookup/awkward");
  struct Shape {
    std::int64_t vocab_size, d_model, n;
  };
  const Shape shapes[] = {
      {draw.between(2, 3000), draw.odd(1, 799), draw.not_multiple_of_32(33, 700)},     // odd width
      {draw.between(2, 3000), 4 * draw.odd(1, 199), draw.not_multiple_of_32(2, 300)},  // 4 mod 8
      {1, 1, 1},  // the smallest
      {draw.between(2, 50), draw.odd(1, 9),
       draw.not_multiple_of_32(1025, 1100)},  // many short rows
  };
  for (const Shape& s : shapes) {
    const Matrix wte = draw.table_with_specials(s.vocab_size, s.d_model);
    expect_lookup("out (V " + std::to_string(s.vocab_size) + ")", wte, draw.ids(s.n, s.vocab_size));
  }
}

TEST(HiddenLookup, BadIdAnywhereIsRefusedAndNothingWritten) {
  Draw draw("lookup/bad-id");
  const std::int64_t vocab_size = draw.between(2, 2000), d = draw.odd(1, 99),
                     n = draw.between(2, 300);
  const Matrix wte = draw.table(vocab_size, d);
  std::vector<std::int32_t> ids = draw.ids(n, vocab_size);
  const std::int64_t at = draw.between(0, n - 1);
  ids[static_cast<std::size_t>(at)] = static_cast<std::int32_t>(
      draw.between(0, 1) ? vocab_size + draw.between(0, 5) : -draw.between(1, 5));
  const Matrix before = draw.table(n, d);
  Matrix got = before, scratch = before;
  EXPECT_TRUE(same_error(
      "lookup with a bad id", [&] { backend::lookup(wte, ids, got); },
      [&] { solution::lookup(wte, ids, scratch); }));
  EXPECT_TRUE(same_bits("out after a refused call", got, before));
}

}  // namespace
