// Lesson 6 — parameter count. materialize() fills the caller's tables (the CUDA
// backend through device copies it allocates) with the shared init and counts
// what it wrote. Checked against
// golden/params.json (numel of PyTorch modules) and golden/init.json (numpy).
#include <algorithm>
#include <cmath>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"
#include "reference/params.hpp"
#include "cuda/params.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

// A GPU's double log and cos may differ from the C library's in the last bit,
// which can move a float32 result by one ulp at most: allow 2^-23 relative.
constexpr Tolerance kOneUlp{0.0, 1.2e-7};

// Elements of m that hold a value (not the NaN they were filled with).
std::int64_t written(const Matrix& m) {
  std::int64_t count = 0;
  for (const float x : m.view().flat()) count += std::isnan(x) ? 0 : 1;
  return count;
}

TEST(Params, MaterializeAndrea120mReportsWhatItWrote) {
  Matrix wte(andrea_120m.vocab_size, andrea_120m.d_model);
  Matrix wpe(andrea_120m.context_length, andrea_120m.d_model);
  std::ranges::fill(wte.view().flat(), std::nanf(""));  // an element left unwritten stays NaN
  std::ranges::fill(wpe.view().flat(), std::nanf(""));
  const ParameterReport report = backend::materialize(andrea_120m, default_seed, wte, wpe);
  // The report counts what was written, and that is every element of both tables.
  EXPECT_EQ(report.token_params, written(wte));
  EXPECT_EQ(report.position_params, written(wpe));
  EXPECT_EQ(report.token_params, 6'488'832);
  EXPECT_EQ(report.position_params, 786'432);
  EXPECT_EQ(report.total, 7'275'264);
  EXPECT_EQ(report.bytes, 29'101'056);

  const json& c = golden_case("init", "andrea-120m");
  for (const auto& [row, values] : c.at("wte_rows").items()) {
    EXPECT_TRUE(all_close("wte row " + row, wte.row(std::stoll(row)), to_floats(values), kOneUlp));
  }
  for (const auto& [row, values] : c.at("wpe_rows").items()) {
    EXPECT_TRUE(all_close("wpe row " + row, wpe.row(std::stoll(row)), to_floats(values), kOneUlp));
  }
  double wte_sum = 0.0, wpe_sum = 0.0;
  for (const float x : wte.view().flat()) wte_sum += x;
  for (const float x : wpe.view().flat()) wpe_sum += x;
  EXPECT_TRUE(close("sum of wte", wte_sum, c.at("wte_sum").get<double>(),
                    tolerance_of(c, "sum_tolerance")));
  EXPECT_TRUE(close("sum of wpe", wpe_sum, c.at("wpe_sum").get<double>(),
                    tolerance_of(c, "sum_tolerance")));
}

TEST(Params, MaterializeTinyMatchesNumpyWholeTables) {
  const json& c = golden_case("init", "tiny");
  const Config config = config_of(c);
  Matrix wte(config.vocab_size, config.d_model), wpe(config.context_length, config.d_model);
  const ParameterReport report = backend::materialize(config, default_seed, wte, wpe);
  EXPECT_EQ(report.total, (5 + 3) * 4);
  EXPECT_TRUE(all_close("wte", wte, to_matrix(c.at("wte")), kOneUlp));
  EXPECT_TRUE(all_close("wpe", wpe, to_matrix(c.at("wpe")), kOneUlp));
}

TEST(ParamsBadInput, ZeroSizedConfig) {
  Matrix wte(5, 4), wpe(3, 4);
  EXPECT_INPUT_ERROR(backend::materialize({"zero-d", 5, 0, 3, false}, 1, wte, wpe),
                     "d_model = 0 must be at least 1");
  EXPECT_INPUT_ERROR(backend::materialize({"zero-v", 0, 4, 3, false}, 1, wte, wpe),
                     "vocab_size = 0 must be at least 1");
  for (const float x : wte.view().flat()) ASSERT_EQ(x, 0.0f) << "wte was written";
}

TEST(ParamsBadInput, TableShapeDisagreesWithConfig) {
  Matrix wte(5, 4), wpe(2, 4);
  EXPECT_INPUT_ERROR(backend::materialize({"tiny", 5, 4, 3, false}, 1, wte, wpe),
                     "wpe has shape (2, 4), expected (3, 4)");
  for (const float x : wte.view().flat()) ASSERT_EQ(x, 0.0f) << "wte was written";
}

// Awkward sizes and poisoned tables: every element must be overwritten with the shared init.
TEST(Params, MaterializeAwkwardSizesOverwritesThePoison) {
  const Config config{"awkward", kAwkwardVocab, kAwkwardWidths[0], kAwkwardRows, false};
  Matrix wte = poisoned(config.vocab_size, config.d_model);
  Matrix wpe = poisoned(config.context_length, config.d_model);
  const ParameterReport report = backend::materialize(config, 99, wte, wpe);
  EXPECT_EQ(report.total, (1031 + 37) * 259);
  EXPECT_TRUE(all_close("wte", wte, init_table(Table::token, config.vocab_size, config.d_model, 99),
                        kOneUlp));
  EXPECT_TRUE(all_close(
      "wpe", wpe, init_table(Table::position, config.context_length, config.d_model, 99), kOneUlp));
}

// The edges: both tables inside poisoned frames: every element written (the last row of each
// table too), none past either table.
TEST(Params, EdgesTablesInsideAPoisonedFrame) {
  const Config config{"awkward", kAwkwardVocab, 33, 37, false};
  Framed wte(config.vocab_size, config.d_model), wpe(config.context_length, config.d_model);
  wte.fill(kPoison), wpe.fill(kPoison);
  backend::materialize(config, 7, wte, wpe);
  EXPECT_TRUE(all_close("wte", wte.view(),
                        init_table(Table::token, config.vocab_size, config.d_model, 7), kOneUlp));
  EXPECT_TRUE(all_close("wpe", wpe.view(),
                        init_table(Table::position, config.context_length, config.d_model, 7),
                        kOneUlp));
  EXPECT_TRUE(wte.untouched("wte"));
  EXPECT_TRUE(wpe.untouched("wpe"));
}

}  // namespace
