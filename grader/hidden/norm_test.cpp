// Lesson 2 — L2 norm, hidden tests: vectors and tables drawn from the instructor's seed, rows
// scaled from 1e-30 to 1e30 (a float32 square under- or overflows there), compared with the
// course's solution within the public tests' tolerance (relative 2e-6).
#include <cmath>

#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/norm.hpp"
#else
#include "reference/norm.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

constexpr Tolerance kTolerance{0.0, 2e-6};  // golden/norm.json

// Multiplies each row of m by 10^e, e drawn in [-30, 30] (one row in four; the others keep
// the init's scale).
void scale_rows(Draw& draw, Matrix& m) {
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    if (draw.between(0, 3) != 0) continue;
    const float factor =
        static_cast<float>(std::pow(10.0, static_cast<double>(draw.between(-30, 30))));
    for (std::int64_t c = 0; c < m.cols(); ++c) m(r, c) *= factor;
  }
}

void expect_row_norms(const std::string& what, const Matrix& m) {
  std::vector<float> got(static_cast<std::size_t>(m.rows()), std::nanf("")), expected(got.size());
  backend::row_norms(m, got);
  solution::row_norms(m, expected);
  EXPECT_TRUE(matches(what, got, expected, kTolerance));
}

TEST(HiddenNorm, RowNormsOfAnAndrea120mTable) {
  Draw draw("norm/andrea-120m");
  Matrix wte = draw.table(8449, 768);
  scale_rows(draw, wte);
  expect_row_norms("row norms of wte (8449, 768)", wte);
}

TEST(HiddenNorm, RowNormsAtAwkwardShapes) {
  Draw draw("norm/awkward-rows");
  const std::int64_t shapes[][2] = {{draw.not_multiple_of_32(1, 300), draw.odd(1, 2001)},
                                    {draw.not_multiple_of_32(1, 300), 4 * draw.odd(1, 199)},
                                    {1, 1},
                                    {draw.not_multiple_of_32(1000, 1500), draw.odd(1, 5)}};
  for (const auto& [rows, cols] : shapes) {
    Matrix m = draw.table(rows, cols);
    scale_rows(draw, m);
    expect_row_norms(
        "row norms of a (" + std::to_string(rows) + ", " + std::to_string(cols) + ") matrix", m);
  }
}

TEST(HiddenNorm, VectorsOfManyLengths) {
  Draw draw("norm/vectors");
  for (const std::int64_t n :
       {std::int64_t{768}, draw.odd(1, 31), draw.not_multiple_of_32(33, 5000),
        draw.not_multiple_of_32(60000, 80000)}) {
    Matrix v = draw.table(1, n);
    scale_rows(draw, v);
    EXPECT_TRUE(close_to("l2_norm of a vector of " + std::to_string(n), backend::l2_norm(v.row(0)),
                         solution::l2_norm(v.row(0)), kTolerance));
  }
}

TEST(HiddenNorm, NonFiniteAnywhereIsRefused) {
  Draw draw("norm/bad");
  const std::int64_t rows = draw.between(1, 40), cols = draw.odd(1, 99);
  Matrix m = draw.table(rows, cols);
  const std::int64_t at = draw.between(0, rows * cols - 1);
  m.view().data()[at] = draw.between(0, 1) ? std::nanf("") : -INFINITY;
  std::vector<float> got(static_cast<std::size_t>(rows), -7.0f), scratch = got;
  EXPECT_TRUE(same_error(
      "row_norms of a matrix holding a non-finite value", [&] { backend::row_norms(m, got); },
      [&] { solution::row_norms(m, scratch); }));
  EXPECT_EQ(got, std::vector<float>(static_cast<std::size_t>(rows), -7.0f))
      << "out was written; " << seed_note();
  EXPECT_TRUE(same_error(
      "l2_norm of a row holding a non-finite value", [&] { backend::l2_norm(m.row(at / cols)); },
      [&] { solution::l2_norm(m.row(at / cols)); }));
}

}  // namespace
