// Lesson 4 — position table. Checked against golden/position.json
// (nn.Embedding(T, d)(arange(n))) and hand-worked cases.
#include <cmath>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"
#include "reference/position.hpp"
#include "cuda/position.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

TEST(Position, HandWorkedFirstRows) {
  Matrix wpe(4, 2);  // row t is [10t, 10t + 1]
  for (int t = 0; t < 4; ++t) wpe(t, 0) = 10.0f * t, wpe(t, 1) = 10.0f * t + 1;
  Matrix out(3, 2);
  backend::positions(wpe, 3, out);
  const float expected[] = {0, 1, 10, 11, 20, 21};
  EXPECT_TRUE(all_close("out", out.view().flat(), expected, {}, 2));
}

TEST(Position, GoldenTiny) {
  const json& c = golden_case("position", "tiny");
  const Config config = config_of(c);
  const Matrix& wpe = position_table(config);
  const std::int64_t n = c.at("n");
  Matrix out(n, config.d_model);
  backend::positions(wpe, n, out);
  EXPECT_TRUE(all_close("out", out, to_matrix(c.at("out")), tolerance_of(c)));
}

TEST(Position, GoldenAndrea120mFullContext) {
  const json& c = golden_case("position", "andrea-120m-example");
  const Matrix& wpe = position_table(andrea_120m);
  Matrix out(1024, andrea_120m.d_model);
  backend::positions(wpe, 1024, out);  // n == T is allowed
  for (const auto& [row, values] : c.at("rows").items()) {
    EXPECT_TRUE(
        all_close("out row " + row, out.row(std::stoll(row)), to_floats(values), tolerance_of(c)));
  }
  std::vector<float> norms;
  for (std::int64_t t = 0; t < out.rows(); ++t) {
    double squares = 0.0;
    for (const float x : out.row(t)) squares += double{x} * x;
    norms.push_back(static_cast<float>(std::sqrt(squares)));
  }
  EXPECT_TRUE(all_close("row norms", norms, to_floats(c.at("row_norms")),
                        tolerance_of(c, "norm_tolerance")));
}

TEST(PositionBadInput, LongerThanContext) {
  const Matrix& wpe = position_table(andrea_120m);
  Matrix out(1025, andrea_120m.d_model);
  EXPECT_INPUT_ERROR(backend::positions(wpe, 1025, out),
                     "sequence length 1025 exceeds context length 1024");
  for (const float x : out.view().flat()) ASSERT_EQ(x, 0.0f) << "out was written";
}

TEST(PositionBadInput, EmptyAndShapes) {
  Matrix wpe(4, 2), out(3, 2);
  EXPECT_INPUT_ERROR(backend::positions(wpe, 0, out), "empty sequence");
  EXPECT_INPUT_ERROR(backend::positions(wpe, 2, out), "out has shape (3, 2), expected (2, 2)");
  EXPECT_INPUT_ERROR(backend::positions(ConstFloatView(nullptr, 0, 2), 1, out), "wpe is empty");
}

// Awkward sizes, a random table, a poisoned output: every row n < T, the last one T - 1 too.
class PositionAwkward : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(PositionAwkward, FirstRowsOverwriteThePoison) {
  const std::int64_t d = GetParam();
  const Matrix& wpe = init_table(Table::position, kAwkwardVocab, d, 99);  // T = 1,031
  for (const std::int64_t n : {kAwkwardRows, kAwkwardVocab}) {
    Matrix out = poisoned(n, d);
    backend::positions(wpe, n, out);
    for (std::int64_t t = 0; t < n; ++t) {
      ASSERT_TRUE(all_close("n = " + std::to_string(n) + ": out row " + std::to_string(t),
                            out.row(t), wpe.row(t), {}));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, PositionAwkward, ::testing::ValuesIn(kAwkwardWidths));

// The edges: n = T, the last row of wpe, with wpe and the output inside poisoned frames.
TEST(Position, EdgesLastRowInsideAPoisonedFrame) {
  const std::int64_t T = 37, d = 9;
  const Framed wpe(init_table(Table::position, T, d, 5));
  Framed out(T, d);
  out.fill(kPoison);
  backend::positions(wpe, T, out);
  EXPECT_TRUE(all_close("out (n = T)", out.view(), wpe.view(), {}));
  EXPECT_TRUE(out.untouched("out"));
}

}  // namespace
