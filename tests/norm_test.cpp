// Lesson 2 — L2 norm. Checked against golden/norm.json (torch.linalg.vector_norm
// in float64) and hand-worked cases.
#include <cmath>
#include <limits>

#include "tests/support/backend.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

TEST(Norm, HandWorked) {
  const float v345[] = {3, 4};
  EXPECT_EQ(backend::l2_norm(v345), 5.0f);
  const float v122[] = {1, 2, 2};
  EXPECT_EQ(backend::l2_norm(v122), 3.0f);
  const float negative[] = {-2};
  EXPECT_EQ(backend::l2_norm(negative), 2.0f);
  const float zero[] = {0, 0, 0};
  EXPECT_EQ(backend::l2_norm(zero), 0.0f);
}

TEST(Norm, NoOverflowNoUnderflow) {
  const float big[] = {1e20f, 1, 1};  // 1e40 overflows float32
  EXPECT_EQ(backend::l2_norm(big), 1e20f);
  const float tiny[] = {1e-30f, 1e-30f};  // 1e-60 underflows float32
  EXPECT_TRUE(close("norm of [1e-30, 1e-30]", backend::l2_norm(tiny), std::sqrt(2.0) * 1e-30,
                    {0, 1e-6}));
}

class NormGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(NormGolden, Vector) {
  const json& c = golden_case("norm", GetParam());
  const std::vector<float> x = to_floats(c.at("x"));
  EXPECT_TRUE(close("norm", backend::l2_norm(x), c.at("norm").get<double>(), tolerance_of(c)));
}

INSTANTIATE_TEST_SUITE_P(Golden, NormGolden,
                         ::testing::Values("3-4-5", "1-2-2", "large", "tiny-values",
                                           "single-negative", "andrea-wte-row-42"));

TEST(Norm, GoldenRowNorms) {
  const json& c = golden_case("norm", "tiny-wte-row-norms");
  const Matrix& wte = token_table(config_of(c));
  std::vector<float> norms(static_cast<std::size_t>(wte.rows()));
  backend::row_norms(wte, norms);
  EXPECT_TRUE(all_close("row norms", norms, to_floats(c.at("row_norms")), tolerance_of(c)));
}

TEST(Norm, RowNormsOfAndreaTokenTable) {
  // Each row holds 768 draws of N(0, 1/768): its norm is close to 1.
  const Matrix& wte = token_table(andrea_120m);
  std::vector<float> norms(static_cast<std::size_t>(wte.rows()));
  backend::row_norms(wte, norms);
  const json& c = golden_case("norm", "andrea-wte-row-42");
  EXPECT_TRUE(close("norm of row 42", norms[42], c.at("norm").get<double>(), tolerance_of(c)));
  for (const float n : norms) ASSERT_NEAR(n, 1.0f, 0.25f);
}

TEST(NormBadInput, EmptyVector) {
  EXPECT_INPUT_ERROR(backend::l2_norm({}), "v is empty");
}

TEST(NormBadInput, NonFinite) {
  const float nan[] = {1, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_INPUT_ERROR(backend::l2_norm(nan), "v[1] is nan");
  const float inf[] = {std::numeric_limits<float>::infinity()};
  EXPECT_INPUT_ERROR(backend::l2_norm(inf), "v[0] is inf");
}

TEST(NormBadInput, RowNormsShapes) {
  Matrix m(2, 3);
  std::vector<float> out(3, -7.0f);
  EXPECT_INPUT_ERROR(backend::row_norms(m, out), "out has 3 elements, expected 2");
  EXPECT_INPUT_ERROR(backend::row_norms(ConstFloatView(nullptr, 0, 3), {}), "m is empty");
  m(1, 2) = std::numeric_limits<float>::infinity();
  out.resize(2);
  EXPECT_INPUT_ERROR(backend::row_norms(m, out), "m[5] is inf");
  EXPECT_EQ(out, std::vector<float>(2, -7.0f)) << "out was written";
}

}  // namespace
