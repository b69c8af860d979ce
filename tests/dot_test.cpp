// Lesson 3 — dot product and cosine similarity. Checked against golden/dot.json
// (torch.dot, F.cosine_similarity, in float64) and hand-worked cases.
#include <cmath>
#include <limits>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"
#include "reference/dot.hpp"
#include "cuda/dot.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

TEST(Dot, HandWorked) {
  const float u[] = {1, 2, 3}, v[] = {4, 5, 6};
  EXPECT_EQ(backend::dot(u, v), 32.0f);  // 4 + 10 + 18
  const float x[] = {1, 0}, y[] = {0, 1};
  EXPECT_EQ(backend::dot(x, y), 0.0f);  // a right angle
  const float minus_u[] = {-1, -2, -3};
  EXPECT_EQ(backend::dot(u, minus_u), -14.0f);  // opposite directions
}

TEST(Cosine, HandWorked) {
  const float u[] = {1, 2, 3}, twice_u[] = {2, 4, 6}, minus_u[] = {-1, -2, -3};
  EXPECT_NEAR(backend::cosine_similarity(u, twice_u), 1.0f, 1e-7);
  EXPECT_NEAR(backend::cosine_similarity(u, minus_u), -1.0f, 1e-7);
  const float x[] = {3, 0}, y[] = {1, 1};
  EXPECT_NEAR(backend::cosine_similarity(x, y), 0.70710678f, 1e-7);  // 45 degrees
}

TEST(Cosine, ZeroVectorGivesZeroNotNan) {
  const float u[] = {1, 2, 3}, zero[] = {0, 0, 0};
  EXPECT_EQ(backend::cosine_similarity(u, zero), 0.0f);
  EXPECT_EQ(backend::cosine_similarity(zero, zero), 0.0f);
}

TEST(Dot, NoOverflowNoUnderflowInCosine) {
  const float big[] = {1e20f, 1e20f}, tiny[] = {1e-30f, 1e-30f};
  EXPECT_NEAR(backend::cosine_similarity(big, big), 1.0f, 1e-7);
  EXPECT_NEAR(backend::cosine_similarity(tiny, tiny), 1.0f, 1e-7);
  EXPECT_NEAR(backend::cosine_similarity(big, tiny), 1.0f, 1e-7);
}

class DotGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(DotGolden, DotAndCosine) {
  const json& c = golden_case("dot", GetParam());
  const std::vector<float> a = to_floats(c.at("a")), b = to_floats(c.at("b"));
  const double expected_dot = c.at("dot");
  if (c.at("overflows_float32")) {
    // The exact dot product is beyond float32's range: it rounds to infinity.
    EXPECT_EQ(backend::dot(a, b),
              std::copysign(std::numeric_limits<float>::infinity(), expected_dot));
  } else {
    EXPECT_TRUE(close("dot", backend::dot(a, b), expected_dot, tolerance_of(c)));
  }
  EXPECT_TRUE(close("cosine", backend::cosine_similarity(a, b), c.at("cosine").get<double>(),
                    tolerance_of(c)));
}

INSTANTIATE_TEST_SUITE_P(Golden, DotGolden,
                         ::testing::Values("small-integers", "orthogonal", "opposite", "parallel",
                                           "zero-vector", "overflow", "andrea-wte-256-1842"));

class CosineMatrixGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(CosineMatrixGolden, RowsOfTheTokenTable) {
  const json& c = golden_case("dot", GetParam());
  const Matrix vectors = to_matrix(c.at("vectors"));
  Matrix out(vectors.rows(), vectors.rows());
  backend::cosine_matrix(vectors, out);
  EXPECT_TRUE(all_close("cosine matrix", out, to_matrix(c.at("matrix")), tolerance_of(c)));
}

INSTANTIATE_TEST_SUITE_P(Golden, CosineMatrixGolden,
                         ::testing::Values("tiny-wte-cosine-matrix", "andrea-wte-cosine-matrix"));

TEST(DotBadInput, SizesDisagree) {
  const float u[] = {1, 2, 3}, v[] = {1, 2};
  EXPECT_INPUT_ERROR(backend::dot(u, v), "v has 2 elements, expected 3");
  EXPECT_INPUT_ERROR(backend::cosine_similarity(u, v), "v has 2 elements, expected 3");
}

TEST(DotBadInput, EmptyAndNonFinite) {
  const float u[] = {1, std::numeric_limits<float>::quiet_NaN()}, v[] = {1, 2};
  EXPECT_INPUT_ERROR(backend::dot({}, {}), "u is empty");
  EXPECT_INPUT_ERROR(backend::dot(u, v), "u[1] is nan");
  EXPECT_INPUT_ERROR(backend::cosine_similarity(v, u), "v[1] is nan");
}

TEST(DotBadInput, CosineMatrixShape) {
  Matrix rows(3, 4), out(3, 2);
  std::fill_n(out.view().data(), 6, -7.0f);
  EXPECT_INPUT_ERROR(backend::cosine_matrix(rows, out), "out has shape (3, 2), expected (3, 3)");
  for (const float x : out.view().flat()) EXPECT_EQ(x, -7.0f) << "out was written";
}

// Awkward sizes, random data, a poisoned output; the expected values are summed in double here.
TEST(Dot, LongRandomVectors) {  // 70,001 elements: many blocks, the last one partly full
  const Matrix& uv = init_table(Table::token, 2, 70001, 99);
  const auto u = uv.row(0), v = uv.row(1);
  double dot = 0.0, magnitude = 0.0, uu = 0.0, vv = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    dot += double{u[i]} * v[i];
    magnitude += std::abs(double{u[i]} * v[i]);
    uu += double{u[i]} * u[i];
    vv += double{v[i]} * v[i];
  }
  EXPECT_TRUE(close("dot", backend::dot(u, v), dot, {1e-5 * magnitude, 1e-6}));
  EXPECT_TRUE(close("cosine", backend::cosine_similarity(u, v), dot / std::sqrt(uu * vv),
                    {1e-5 * magnitude / std::sqrt(uu * vv), 1e-6}));
}

class CosineAwkward : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(CosineAwkward, MatrixOfRandomRowsOverwritesThePoison) {
  const std::int64_t d = GetParam();
  const Matrix& rows = init_table(Table::token, kAwkwardRows, d, 99);
  Matrix out = poisoned(kAwkwardRows, kAwkwardRows);
  backend::cosine_matrix(rows, out);
  Matrix expected(kAwkwardRows, kAwkwardRows);
  for (std::int64_t i = 0; i < kAwkwardRows; ++i) {
    for (std::int64_t j = 0; j < kAwkwardRows; ++j) {
      double dot = 0.0, ii = 0.0, jj = 0.0;
      for (std::int64_t c = 0; c < d; ++c) {
        dot += double{rows(i, c)} * rows(j, c);
        ii += double{rows(i, c)} * rows(i, c);
        jj += double{rows(j, c)} * rows(j, c);
      }
      expected(i, j) = static_cast<float>(dot / std::sqrt(ii * jj));
    }
  }
  EXPECT_TRUE(all_close("cosine matrix", out, expected, {1e-6, 1e-5}));
}

INSTANTIATE_TEST_SUITE_P(Widths, CosineAwkward, ::testing::ValuesIn(kAwkwardWidths));

// The edges: the rows inside a poisoned frame, the matrix into a framed output; the same
// values as without frames (the goldens check the values themselves), nothing past it.
TEST(Cosine, EdgesMatrixInsideAPoisonedFrame) {
  const Matrix& rows = init_table(Table::token, kAwkwardRows, 33, 5);
  Matrix plain(kAwkwardRows, kAwkwardRows);
  backend::cosine_matrix(rows, plain);
  Framed out(kAwkwardRows, kAwkwardRows);
  out.fill(kPoison);
  backend::cosine_matrix(Framed(rows), out);
  EXPECT_TRUE(all_close("cosine matrix, framed", out.view(), plain, {}));
  EXPECT_TRUE(out.untouched("cosine matrix"));
}

}  // namespace
