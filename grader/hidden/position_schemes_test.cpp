// Lesson 7 — position schemes, hidden tests: the sinusoidal table at lengths and widths drawn
// from the instructor's seed, RoPE of drawn rows at drawn positions and bases (in place too),
// compared with the course's solution within the public tests' tolerances.
#include <cmath>

#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/rope.hpp"
#include "cuda/sinusoidal.hpp"
#else
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

constexpr Tolerance kSinusoidal{1e-6, 0.0};  // golden/position_schemes.json
constexpr Tolerance kRope{1e-8, 1e-6};

void expect_sinusoidal(std::int64_t n, std::int64_t d, std::int64_t T) {
  Matrix got = poisoned(n, d), expected(n, d);
  backend::sinusoidal_table(n, d, T, got);
  solution::sinusoidal_table(n, d, T, expected);
  EXPECT_TRUE(matches("sinusoidal table n = " + std::to_string(n) +
                          ", d_model = " + std::to_string(d) + ", T = " + std::to_string(T),
                      got, expected, kSinusoidal));
}

TEST(HiddenSinusoidal, Andrea120mShapes) {
  Draw draw("sinusoidal/andrea-120m");
  expect_sinusoidal(1024, 768, 1024);
  expect_sinusoidal(draw.not_multiple_of_32(1, 1023), 768, 1024);
}

TEST(HiddenSinusoidal, AwkwardShapes) {
  Draw draw("sinusoidal/awkward");
  const std::int64_t T = draw.not_multiple_of_32(33, 3000);
  const std::int64_t n = draw.between(1, T),
                     d = 2 * draw.odd(1, 399);  // 2 mod 4: an odd number of pairs
  expect_sinusoidal(n, d, T);
  expect_sinusoidal(T, 4 * draw.odd(1, 99), T);
  expect_sinusoidal(1, 2, 1);
}

void expect_rope(const std::string& what, const Matrix& x,
                 const std::vector<std::int32_t>& positions, double base) {
  Matrix got = poisoned(x.rows(), x.cols()), expected(x.rows(), x.cols());
  backend::rope(x, positions, base, got);
  solution::rope(x, positions, base, expected);
  const std::string shape = " (" + std::to_string(x.rows()) + ", " + std::to_string(x.cols()) +
                            "), base " + std::to_string(base);
  EXPECT_TRUE(matches("rope of " + what + shape, got, expected, kRope));
  Matrix in_place = x;  // out is x
  backend::rope(in_place, positions, base, in_place);
  EXPECT_TRUE(matches("rope in place of " + what + shape, in_place, expected, kRope));
}

// Positions in [0, limit), with 0 and limit - 1 among them.
std::vector<std::int32_t> positions_below(Draw& draw, std::int64_t rows, std::int64_t limit) {
  return draw.ids(rows, limit);
}

TEST(HiddenRope, Andrea120mShapes) {
  Draw draw("rope/andrea-120m");
  const Matrix x = draw.table(1024, 768);
  std::vector<std::int32_t> in_order(1024);
  for (std::int32_t t = 0; t < 1024; ++t) in_order[static_cast<std::size_t>(t)] = t;
  expect_rope("rows at positions 0..1023", x, in_order, reference::rope_default_base);
  const std::int64_t rows = draw.not_multiple_of_32(1, 200);
  const Matrix y = draw.table(rows, 768), z = draw.table(rows, 768);
  const std::vector<std::int32_t> far = positions_below(draw, rows, 100000),
                                  near = positions_below(draw, rows, 1024);
  expect_rope("rows at drawn positions below 100000", y, far, reference::rope_default_base);
  expect_rope("rows at drawn positions, base 500000", z, near, 500000.0);
}

TEST(HiddenRope, AwkwardShapesAndBases) {
  Draw draw("rope/awkward");
  for (int i = 0; i < 3; ++i) {
    const std::int64_t rows = draw.not_multiple_of_32(1, 300), d = 2 * draw.odd(1, 199);
    const double base =
        std::pow(10.0, static_cast<double>(draw.between(30, 600)) / 100.0);  // 2 to 1e6
    const Matrix x = draw.table(rows, d);
    expect_rope("drawn rows", x, positions_below(draw, rows, 5000), base);
  }
}

TEST(HiddenRope, NegativePositionIsRefusedAndNothingWritten) {
  Draw draw("rope/bad");
  const std::int64_t rows = draw.between(2, 50), d = 2 * draw.between(1, 40);
  const Matrix x = draw.table(rows, d), before = draw.table(rows, d);
  std::vector<std::int32_t> positions = positions_below(draw, rows, 1024);
  positions[static_cast<std::size_t>(draw.between(0, rows - 1))] =
      -static_cast<std::int32_t>(draw.between(1, 1000));
  Matrix got = before, scratch = before;
  EXPECT_TRUE(same_error(
      "rope with a negative position", [&] { backend::rope(x, positions, 10000.0, got); },
      [&] { solution::rope(x, positions, 10000.0, scratch); }));
  EXPECT_TRUE(same_bits("out after a refused call", got, before));
}

}  // namespace
