// Lesson 4 — position table, hidden tests: tables drawn from the instructor's seed, lengths n
// up to the context length T, compared bit for bit with the course's solution.
#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/position.hpp"
#else
#include "reference/position.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

void expect_positions(const std::string& what, ConstFloatView wpe, std::int64_t n) {
  Matrix got = poisoned(n, wpe.cols()), expected(n, wpe.cols());
  backend::positions(wpe, n, got);
  solution::positions(wpe, n, expected);
  EXPECT_TRUE(same_bits(what + " (n = " + std::to_string(n) + ")", got, expected));
}

TEST(HiddenPosition, Andrea120mShapes) {
  Draw draw("position/andrea-120m");
  const Matrix wpe = draw.table_with_specials(1024, 768);
  expect_positions("rows of wpe (1024, 768)", wpe, 1024);
  expect_positions("rows of wpe (1024, 768)", wpe, draw.not_multiple_of_32(1, 1023));
}

TEST(HiddenPosition, AwkwardShapes) {
  Draw draw("position/awkward");
  const std::int64_t shapes[][2] = {{draw.not_multiple_of_32(33, 1100), draw.odd(1, 799)},
                                    {draw.not_multiple_of_32(2, 300), 4 * draw.odd(1, 199)},
                                    {1, 1}};
  for (const auto& [T, d] : shapes) {
    const Matrix wpe = draw.table_with_specials(T, d);
    const std::string what = "rows of wpe (" + std::to_string(T) + ", " + std::to_string(d) + ")";
    expect_positions(what, wpe, T);
    expect_positions(what, wpe, draw.between(1, T));
  }
}

TEST(HiddenPosition, LongerThanTheContextIsRefused) {
  Draw draw("position/bad");
  const std::int64_t T = draw.between(1, 200), d = draw.odd(1, 99), n = T + draw.between(1, 50);
  const Matrix wpe = draw.table(T, d), before = draw.table(n, d);
  Matrix got = before, scratch = before;
  EXPECT_TRUE(same_error(
      "positions past the context length", [&] { backend::positions(wpe, n, got); },
      [&] { solution::positions(wpe, n, scratch); }));
  EXPECT_TRUE(same_bits("out after a refused call", got, before));
}

}  // namespace
