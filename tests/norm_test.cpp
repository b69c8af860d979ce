// Lesson 2 — L2 norm. Checked against golden/norm.json (torch.linalg.vector_norm
// in float64) and hand-worked cases.
#include <cmath>
#include <limits>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/efficiency.hpp"
#include "tests/support/framed.hpp"
#include "reference/norm.hpp"
#include "cuda/norm.hpp"

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
  EXPECT_TRUE(
      close("norm of [1e-30, 1e-30]", backend::l2_norm(tiny), std::sqrt(2.0) * 1e-30, {0, 1e-6}));
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

TEST(NormBadInput, EmptyVector) { EXPECT_INPUT_ERROR(backend::l2_norm({}), "v is empty"); }

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

// Awkward sizes, random data, a poisoned output; the expected norms are summed in double here.
double norm_in_double(std::span<const float> v) {
  double squares = 0.0;
  for (const float x : v) squares += double{x} * x;
  return std::sqrt(squares);
}

class NormAwkward : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(NormAwkward, RowNormsOfARandomTableOverwriteThePoison) {
  const std::int64_t d = GetParam();
  const Matrix& m = init_table(Table::token, kAwkwardRows, d, 99);
  std::vector<float> out(static_cast<std::size_t>(kAwkwardRows), kPoison);
  backend::row_norms(m, out);
  std::vector<float> expected;
  for (std::int64_t r = 0; r < kAwkwardRows; ++r) {
    expected.push_back(static_cast<float>(norm_in_double(m.row(r))));
  }
  EXPECT_TRUE(all_close("row norms", out, expected, {0.0, 1e-6}));
}

INSTANTIATE_TEST_SUITE_P(Widths, NormAwkward, ::testing::ValuesIn(kAwkwardWidths));

TEST(Norm, LongRandomVector) {  // 70,001 elements: many blocks, the last one partly full
  const Matrix& v = init_table(Table::token, 1, 70001, 99);
  EXPECT_TRUE(close("norm", backend::l2_norm(v.row(0)), norm_in_double(v.row(0)), {0.0, 1e-6}));
}

// The edges: the table inside a poisoned frame, the norms into a framed vector; each norm as
// the same call gives without frames (the goldens check the values themselves).
TEST(Norm, EdgesLastRowInsideAPoisonedFrame) {
  const Matrix& m = init_table(Table::token, kAwkwardRows, 259, 5);
  const Framed framed(m);
  std::vector<float> plain(static_cast<std::size_t>(kAwkwardRows));
  backend::row_norms(m, plain);
  FramedVector out(kAwkwardRows);
  for (float& x : out.span()) x = kPoison;
  backend::row_norms(framed, out.span());
  EXPECT_TRUE(all_close("row norms, framed", out.span(), plain, {}));
  EXPECT_TRUE(out.untouched("row norms"));
}

// What the kernel costs (lessons/02_norm/README.md): the norms of 8 rows of 768 floats. The
// block's partial sums meet in shared memory: with no bank conflict, and with the active threads
// the lowest ones, so that whole warps skip a step (at most 4 shared loads per warp launched).
TEST(Efficiency, NormReadsSharedMemoryWithoutConflictsOrIdleWarps) {
  Matrix m(8, 768);
  for (std::int64_t i = 0; i < m.view().size(); ++i)
    m.view().data()[i] = static_cast<float>(i % 7) - 3.0f;
  std::vector<float> out(8);
  expect_within_cost(
      [&] { backend::row_norms(m, out); },
      {.max_waste = 1.25,
       .waste_hint = "give threadIdx.x the column (thread i sums columns i, i + blockDim.x, ...)",
       .max_bank_conflicts = 0,
       .conflict_hint = "index the partial sums by the thread (partial[tid] += partial[tid + "
                        "stride]), not by 2 * stride * tid, so that a warp reads neighbouring words",
       .max_shared_loads_per_warp = 4,
       .shared_hint = "keep the active threads the lowest ones (if (tid < stride)) rather than "
                      "every (2 * stride)-th (tid % (2 * stride) == 0), so that whole warps skip "
                      "the step"});
}

}  // namespace
