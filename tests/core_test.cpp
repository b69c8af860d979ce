// What every backend shares: Philox, the init, the example sequence, configs
// and the validation messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/check.hpp"
#include "core/config.hpp"
#include "core/init.hpp"
#include "core/philox.hpp"
#include "reference/params.hpp"
#include "tests/support/golden.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

// Known answers of Philox4x32-10 (Random123's kat_vectors).
TEST(Philox, KnownAnswers) {
  const Philox4x32 zero = philox4x32_10({{0, 0, 0, 0}}, 0, 0);
  EXPECT_EQ(zero.v[0], 0x6627e8d5u);
  EXPECT_EQ(zero.v[1], 0xe169c58du);
  EXPECT_EQ(zero.v[2], 0xbc57ac4cu);
  EXPECT_EQ(zero.v[3], 0x9b00dbd8u);
  const Philox4x32 ones = philox4x32_10({{~0u, ~0u, ~0u, ~0u}}, ~0u, ~0u);
  EXPECT_EQ(ones.v[0], 0x408f276du);
  EXPECT_EQ(ones.v[1], 0x41c83b0eu);
  EXPECT_EQ(ones.v[2], 0xa20bc7c6u);
  EXPECT_EQ(ones.v[3], 0x6d5451fdu);
}

TEST(Init, MatchesNumpyTinyTables) {
  const json& c = golden_case("init", "tiny");
  const Config config = config_of(c);
  EXPECT_TRUE(all_close("wte", token_table(config), to_matrix(c.at("wte")), {}));
  EXPECT_TRUE(all_close("wpe", position_table(config), to_matrix(c.at("wpe")), {}));
}

// A row range of a matrix is a view of the same data: rows 1 and 2 of a (4, 3) matrix.
TEST(MatrixView, RowRangeSharesTheData) {
  float data[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const FloatView m{data, 4, 3};
  const FloatView slice = m.rows(1, 2);
  EXPECT_EQ(slice.rows(), 2);
  EXPECT_EQ(slice.cols(), 3);
  EXPECT_EQ(slice.data(), data + 3);
  EXPECT_EQ(slice(0, 0), 3.0f);
  EXPECT_EQ(slice(1, 2), 8.0f);
}

TEST(Init, AnyElementAloneOtherSeedOtherTable) {
  // init_value draws one element on its own: a golden row of ANDREA's wte, element by element.
  const json& c = golden_case("init", "andrea-120m");
  const auto row = c.at("wte_rows").items().begin();
  const std::vector<float> golden = to_floats(row.value());
  const std::int64_t r = std::stoll(row.key()), d = andrea_120m.d_model;
  for (std::int64_t col = 0; col < d; col += 97) {
    EXPECT_NEAR(init_value(default_seed, Table::token, r * d + col, d), golden[col],
                1.2e-7 * std::abs(golden[col]))
        << "wte[" << r << "][" << col << "]";
  }
  EXPECT_NE(init_value(7, Table::token, 12345, 768), init_value(8, Table::token, 12345, 768));
  EXPECT_NE(init_value(7, Table::token, 12345, 768), init_value(7, Table::position, 12345, 768));
}

TEST(Init, StatisticsOfAndreaTokenTable) {
  // N(0, 1/768): mean ~0, variance ~1/768 over 6.5M draws.
  const Matrix& wte = token_table(andrea_120m);
  double sum = 0.0, squares = 0.0;
  for (const float x : wte.view().flat()) sum += x, squares += double{x} * x;
  const double n = static_cast<double>(wte.view().size());
  EXPECT_NEAR(sum / n, 0.0, 1e-4);
  EXPECT_NEAR(squares / n, 1.0 / 768, 1e-5);
}

TEST(ExampleIds, StartsWithTheLessonsIdsAndStaysInRange) {
  const std::vector<std::int32_t> ids = example_ids(1024, 8449);
  ASSERT_EQ(ids.size(), 1024u);
  EXPECT_THAT(std::vector<std::int32_t>(ids.begin(), ids.begin() + 3),
              ::testing::ElementsAre(256, 1842, 7301));
  for (const std::int32_t id : ids) ASSERT_TRUE(id >= 0 && id < 8449) << id;
  EXPECT_THROW(example_ids(4, 100), InputError);
}

// The constexpr parameter counts (reference/params.hpp) against numel() of PyTorch modules.
TEST(ParamCounts, MatchPyTorchModules) {
  for (const Config& config : presets) {
    SCOPED_TRACE(std::string(config.name));
    const json& c = golden_case("params", config.name);
    EXPECT_EQ(token_table_params(config), c.at("token_table"));
    EXPECT_EQ(position_table_params(config), c.at("position_table"));
    EXPECT_EQ(embedding_params(config), c.at("embedding_total"));
    EXPECT_EQ(head_params(config), c.at("head_params_added"));
  }
}

TEST(Config, PresetsAndValidation) {
  EXPECT_EQ(config_by_name("andrea-120m").vocab_size, 8449);
  EXPECT_EQ(config_by_name("gpt2-124m").vocab_size, 50257);
  EXPECT_THAT([] { config_by_name("llama"); },
              ::testing::ThrowsMessage<InputError>(::testing::HasSubstr("unknown config 'llama'")));
  EXPECT_NO_THROW(validate(andrea_120m));
  EXPECT_THAT(
      [] {
        validate({"bad", 8449, 768, -1, false});
      },
      ::testing::ThrowsMessage<InputError>(::testing::HasSubstr("context_length = -1")));
}

TEST(Check, MessagesNameTheValueAndTheBound) {
  const std::int32_t ids[] = {1, 8449};
  EXPECT_THAT([&] { check::token_ids(ids, 8449); },
              ::testing::ThrowsMessage<InputError>(
                  ::testing::StrEq("token id 8449 at position 1 is outside [0, 8449)")));
  EXPECT_THAT([] { check::sequence_length(1025, 1024); },
              ::testing::ThrowsMessage<InputError>(
                  ::testing::StrEq("sequence length 1025 exceeds context length 1024")));
  EXPECT_NO_THROW(check::sequence_length(1024, 1024));
}

}  // namespace
