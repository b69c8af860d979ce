// Lesson 3 — dot product and cosine similarity, hidden tests: vectors and rows drawn from the
// instructor's seed, with a zero row, a row and its double, a row and its negation among them,
// compared with the course's solution within the public tests' tolerances.
#include <cmath>

#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/dot.hpp"
#else
#include "reference/dot.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

constexpr Tolerance kCosineMatrix{1e-6, 1e-5};  // tests/dot_test.cpp, CosineAwkward

// dot and cosine of u and v: relative 1e-6 plus 1e-5 of sum |u_i v_i| (the rounding a float
// sum of the products may carry), as tests/dot_test.cpp's LongRandomVectors.
void expect_dot_and_cosine(const std::string& what, std::span<const float> u,
                           std::span<const float> v) {
  double magnitude = 0.0, uu = 0.0, vv = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    magnitude += std::abs(double{u[i]} * v[i]);
    uu += double{u[i]} * u[i];
    vv += double{v[i]} * v[i];
  }
  EXPECT_TRUE(close_to("dot of " + what, backend::dot(u, v), solution::dot(u, v),
                       {std::max(1e-6, 1e-5 * magnitude), 1e-6}));
  const double scale = uu > 0 && vv > 0 ? magnitude / std::sqrt(uu * vv) : 0.0;
  EXPECT_TRUE(close_to("cosine of " + what, backend::cosine_similarity(u, v),
                       solution::cosine_similarity(u, v), {std::max(1e-6, 1e-5 * scale), 1e-6}));
}

TEST(HiddenDot, PairsOfAndrea120mRows) {
  Draw draw("dot/andrea-120m");
  const Matrix rows = draw.table(4, 768);
  expect_dot_and_cosine("two rows of width 768", rows.row(0), rows.row(1));
  std::vector<float> twice(rows.row(2).begin(), rows.row(2).end()), opposite = twice;
  for (std::size_t i = 0; i < twice.size(); ++i) twice[i] *= 2.0f, opposite[i] = -opposite[i];
  expect_dot_and_cosine("a row and its double", rows.row(2), twice);
  expect_dot_and_cosine("a row and its negation", rows.row(2), opposite);
  const std::vector<float> zero(768, 0.0f);
  expect_dot_and_cosine("a row and the zero vector", rows.row(3), zero);
}

TEST(HiddenDot, VectorsOfManyLengths) {
  Draw draw("dot/lengths");
  for (const std::int64_t n : {draw.odd(1, 31), draw.not_multiple_of_32(33, 5000),
                               draw.not_multiple_of_32(60000, 80000)}) {
    const Matrix uv = draw.table(2, n);
    expect_dot_and_cosine("two vectors of " + std::to_string(n), uv.row(0), uv.row(1));
  }
}

void expect_cosine_matrix(const std::string& what, const Matrix& rows) {
  Matrix got = poisoned(rows.rows(), rows.rows()), expected(rows.rows(), rows.rows());
  backend::cosine_matrix(rows, got);
  solution::cosine_matrix(rows, expected);
  EXPECT_TRUE(matches(what, got, expected, kCosineMatrix));
}

TEST(HiddenDot, CosineMatrices) {
  Draw draw("dot/cosine-matrix");
  // The first 16 rows of an ANDREA-sized x (as the program's heatmap), one of them zero and one
  // a copy of another.
  Matrix x = draw.table(16, 768);
  const std::int64_t zero = draw.between(0, 15), copy = draw.between(0, 15),
                     of = draw.between(0, 15);
  for (std::int64_t c = 0; c < 768; ++c) x(copy, c) = x(of, c);
  for (std::int64_t c = 0; c < 768; ++c) x(zero, c) = 0.0f;
  expect_cosine_matrix("cosine matrix of 16 rows of width 768", x);
  const std::int64_t rows = draw.not_multiple_of_32(2, 40), cols = draw.odd(1, 801);
  expect_cosine_matrix(
      "cosine matrix of " + std::to_string(rows) + " rows of width " + std::to_string(cols),
      draw.table(rows, cols));
  expect_cosine_matrix("cosine matrix of one row", draw.table(1, draw.odd(1, 9)));
}

TEST(HiddenDot, BadInputIsRefused) {
  Draw draw("dot/bad");
  const std::int64_t n = draw.odd(3, 99);
  Matrix uv = draw.table(2, n);
  const std::span<const float> u = uv.row(0), v = uv.row(1),
                               shorter = v.first(static_cast<std::size_t>(draw.between(1, n - 1)));
  EXPECT_TRUE(same_error(
      "dot of vectors of different sizes", [&] { backend::dot(u, shorter); },
      [&] { solution::dot(u, shorter); }));
  uv(1, draw.between(0, n - 1)) = std::nanf("");
  EXPECT_TRUE(same_error(
      "cosine with a NaN in v", [&] { backend::cosine_similarity(u, v); },
      [&] { solution::cosine_similarity(u, v); }));
}

}  // namespace
