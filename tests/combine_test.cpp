// Lesson 5 — combine: x[t] = wte[id_t] + wpe[t]. Checked against
// golden/combine.json (wte(idx) + wpe(pos) in PyTorch) and hand-worked cases.
#include <cmath>
#include <numeric>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/efficiency.hpp"
#include "tests/support/framed.hpp"
#include "reference/combine.hpp"
#include "cuda/combine.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

// wte row r = [r, r], wpe row t = [100 t, 100 t]: x[t] = [id + 100 t, ...].
struct Tables {
  Matrix wte{5, 2}, wpe{3, 2};
  Tables() {
    for (int r = 0; r < 5; ++r) wte(r, 0) = wte(r, 1) = static_cast<float>(r);
    for (int t = 0; t < 3; ++t) wpe(t, 0) = wpe(t, 1) = 100.0f * t;
  }
};

TEST(Combine, HandWorked) {
  const Tables tables;
  const std::vector<std::int32_t> ids = {4, 1, 4};
  Matrix out(3, 2);
  backend::combine(tables.wte, tables.wpe, ids, out);
  const float expected[] = {4, 4, 101, 101, 204, 204};
  EXPECT_TRUE(all_close("x", out.view().flat(), expected, {}, 2));
}

TEST(Combine, BatchUsesPositionInSequenceNotBatchIndex) {
  const Tables tables;
  const std::int32_t ids[] = {4, 1, 4,  //
                              0, 0, 2};
  Matrix out(6, 2);
  backend::combine_batch(tables.wte, tables.wpe, TokenIdBatch(ids, 2, 3), out);
  const float expected[] = {4, 4, 101, 101, 204, 204,   // sequence 0
                            0, 0, 100, 100, 202, 202};  // sequence 1 starts again at t = 0
  EXPECT_TRUE(all_close("x", out.view().flat(), expected, {}, 2));
}

void expect_golden_case(const char* name) {
  const json& c = golden_case("combine", name);
  const Config config = config_of(c);
  const Matrix &wte = token_table(config), wpe = position_table(config);
  const Matrix expected = to_matrix(c.at("out"));
  Matrix out(expected.rows(), config.d_model);
  if (c.at("ids").at(0).is_array()) {
    const json& batch = c.at("ids");
    std::vector<std::int32_t> flat;
    for (const json& seq : batch) {
      for (const std::int32_t id : to_ids(seq)) flat.push_back(id);
    }
    const auto n = static_cast<std::int64_t>(batch.at(0).size());
    backend::combine_batch(
        wte, wpe, TokenIdBatch(flat.data(), static_cast<std::int64_t>(batch.size()), n), out);
  } else {
    backend::combine(wte, wpe, to_ids(c.at("ids")), out);
  }
  EXPECT_TRUE(all_close("x", out, expected, tolerance_of(c)));
}

TEST(Combine, GoldenTiny) { expect_golden_case("tiny"); }
TEST(Combine, GoldenTinyBatch) { expect_golden_case("tiny-batch"); }
TEST(Combine, GoldenOddWidth) { expect_golden_case("odd-width"); }

std::vector<float> norms_of(const Matrix& x, double* sum) {
  std::vector<float> norms;
  *sum = 0.0;
  for (std::int64_t r = 0; r < x.rows(); ++r) {
    double squares = 0.0;
    for (const float v : x.row(r)) squares += double{v} * v, *sum += v;
    norms.push_back(static_cast<float>(std::sqrt(squares)));
  }
  return norms;
}

TEST(Combine, GoldenAndrea120mExampleSequence) {
  const json& c = golden_case("combine", "andrea-120m-example");
  const Matrix &wte = token_table(andrea_120m), wpe = position_table(andrea_120m);
  const std::vector<std::int32_t> ids = example_ids(1024, andrea_120m.vocab_size);
  Matrix x(1024, andrea_120m.d_model);
  backend::combine(wte, wpe, ids, x);
  for (const auto& [row, values] : c.at("rows").items()) {
    EXPECT_TRUE(
        all_close("x row " + row, x.row(std::stoll(row)), to_floats(values), tolerance_of(c)));
  }
  double sum = 0.0;
  EXPECT_TRUE(all_close("row norms", norms_of(x, &sum), to_floats(c.at("row_norms")),
                        tolerance_of(c, "norm_tolerance")));
  EXPECT_TRUE(close("sum of x", sum, c.at("sum").get<double>(), tolerance_of(c, "sum_tolerance")));
}

TEST(Combine, GoldenAndrea120mBatch) {
  const json& c = golden_case("combine", "andrea-120m-batch");
  const Matrix &wte = token_table(andrea_120m), wpe = position_table(andrea_120m);
  const std::vector<std::int32_t> ids = example_ids(1024, andrea_120m.vocab_size);
  std::vector<std::int32_t> batch(2 * 1024);
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t t = 0; t < 1024; ++t) batch[b * 1024 + t] = ids[(t + b) % 1024];
  }
  Matrix x(2 * 1024, andrea_120m.d_model);
  backend::combine_batch(wte, wpe, TokenIdBatch(batch.data(), 2, 1024), x);
  double sum = 0.0;
  EXPECT_TRUE(all_close("row norms", norms_of(x, &sum), to_floats(c.at("row_norms")),
                        tolerance_of(c, "norm_tolerance")));
  EXPECT_TRUE(close("sum of x", sum, c.at("sum").get<double>(), tolerance_of(c, "sum_tolerance")));
}

// Widths with and without 16-byte vector loads: x[t][c] = wte[id][c] + wpe[t][c],
// one float32 addition per element, so the result is exact.
class CombineWidth : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(CombineWidth, EveryElementIsOneAddition) {
  const std::int64_t d = GetParam();
  const Matrix& wte = init_table(Table::token, 11, d);
  const Matrix& wpe = init_table(Table::position, 4, d);
  const std::int32_t ids[] = {10, 0, 7, 7,  //
                              3,  3, 1, 10};
  Matrix x(8, d), expected(8, d);
  for (std::int64_t r = 0; r < 8; ++r) {
    for (std::int64_t c = 0; c < d; ++c) expected(r, c) = wte(ids[r], c) + wpe(r % 4, c);
  }
  backend::combine_batch(wte, wpe, TokenIdBatch(ids, 2, 4), x);
  EXPECT_TRUE(all_close("x", x, expected, {}));
}

INSTANTIATE_TEST_SUITE_P(Widths, CombineWidth, ::testing::Values(1, 3, 5, 7, 8, 769));

class CombineBadInput : public ::testing::Test {
 protected:
  Tables tables;
  Matrix out{3, 2};
  void SetUp() override { std::fill_n(out.view().data(), out.view().size(), -7.0f); }
  void expect_untouched() { expect_untouched(out); }
  static void expect_untouched(const Matrix& m) {
    for (const float x : m.view().flat()) ASSERT_EQ(x, -7.0f) << "out was written";
  }
};

TEST_F(CombineBadInput, IdOutOfRange) {
  const std::vector<std::int32_t> ids = {0, 1, 5};
  EXPECT_INPUT_ERROR(backend::combine(tables.wte, tables.wpe, ids, out),
                     "token id 5 at position 2 is outside [0, 5)");
  expect_untouched();
}

TEST_F(CombineBadInput, LongerThanContext) {
  const std::vector<std::int32_t> ids = {0, 1, 2, 3};
  Matrix out4(4, 2);  // the right shape for 4 ids: only the length is wrong
  std::fill_n(out4.view().data(), out4.view().size(), -7.0f);
  EXPECT_INPUT_ERROR(backend::combine(tables.wte, tables.wpe, ids, out4),
                     "sequence length 4 exceeds context length 3");
  expect_untouched(out4);
}

TEST_F(CombineBadInput, EmptySequence) {
  EXPECT_INPUT_ERROR(backend::combine(tables.wte, tables.wpe, {}, out), "empty sequence");
  expect_untouched();
}

TEST_F(CombineBadInput, TablesOfDifferentWidth) {
  Matrix wpe3(3, 3);
  const std::vector<std::int32_t> ids = {0, 1, 2};
  EXPECT_INPUT_ERROR(backend::combine(tables.wte, wpe3, ids, out),
                     "wpe has shape (3, 3), expected (3, 2)");
  expect_untouched();
}

TEST_F(CombineBadInput, BatchIdOutOfRangeNamesFlatPosition) {
  const std::int32_t ids[] = {0, 1, 2, 3, -4, 0};
  Matrix out6(6, 2);
  EXPECT_INPUT_ERROR(backend::combine_batch(tables.wte, tables.wpe, TokenIdBatch(ids, 2, 3), out6),
                     "token id -4 at position 4 is outside [0, 5)");
  for (const float x : out6.view().flat()) ASSERT_EQ(x, 0.0f) << "out was written";
}

TEST_F(CombineBadInput, BatchOutputShape) {
  const std::int32_t ids[] = {0, 1, 2, 3, 4, 0};
  EXPECT_INPUT_ERROR(backend::combine_batch(tables.wte, tables.wpe, TokenIdBatch(ids, 2, 3), out),
                     "out has shape (3, 2), expected (6, 2)");
  expect_untouched();
}

// Awkward sizes, random tables, random ids ending with V - 1, a poisoned output: each element
// is one float addition, so the result is exact.
class CombineAwkward : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(CombineAwkward, RandomIdsOverwriteThePoison) {
  const std::int64_t d = GetParam(), n = kAwkwardRows;
  const Matrix& wte = init_table(Table::token, kAwkwardVocab, d, 99);
  const Matrix& wpe = init_table(Table::position, n, d, 99);  // T = n: the last position too
  const std::vector<std::int32_t> ids = random_ids(n, kAwkwardVocab);
  Matrix out = poisoned(n, d);
  backend::combine(wte, wpe, ids, out);
  Matrix expected(n, d);
  for (std::int64_t t = 0; t < n; ++t) {
    for (std::int64_t c = 0; c < d; ++c)
      expected(t, c) = wte(ids[static_cast<std::size_t>(t)], c) + wpe(t, c);
  }
  EXPECT_TRUE(all_close("x", out, expected, {}));
}

TEST_P(CombineAwkward, RandomBatchOverwritesThePoison) {
  const std::int64_t d = GetParam(), batch = 3, n = 13;
  const Matrix& wte = init_table(Table::token, kAwkwardVocab, d, 99);
  const Matrix& wpe = init_table(Table::position, kAwkwardRows, d, 99);
  const std::vector<std::int32_t> ids = random_ids(batch * n, kAwkwardVocab);
  Matrix out = poisoned(batch * n, d);
  backend::combine_batch(wte, wpe, TokenIdBatch(ids.data(), batch, n), out);
  Matrix expected(batch * n, d);
  for (std::int64_t r = 0; r < batch * n; ++r) {
    for (std::int64_t c = 0; c < d; ++c)
      expected(r, c) = wte(ids[static_cast<std::size_t>(r)], c) + wpe(r % n, c);
  }
  EXPECT_TRUE(all_close("x", out, expected, {}));
}

INSTANTIATE_TEST_SUITE_P(Widths, CombineAwkward, ::testing::ValuesIn(kAwkwardWidths));

// The edges: ids 0 and V - 1 at the first and last position of a full context (n = T),
// every table and the output inside poisoned frames.
TEST(Combine, EdgesLastRowsInsideAPoisonedFrame) {
  const std::int64_t V = kAwkwardVocab, T = 5, d = 33, B = 2;
  const Framed wte(init_table(Table::token, V, d, 5)), wpe(init_table(Table::position, T, d, 6));
  const std::int32_t last = static_cast<std::int32_t>(V - 1);
  const std::vector<std::int32_t> ids = {last, 3, 0, 7, last, 0, last, 2, 9, last};
  Framed out(B * T, d);
  out.fill(kPoison);
  backend::combine_batch(wte, wpe, TokenIdBatch(ids.data(), B, T), out);
  for (std::int64_t q = 0; q < B * T; ++q) {
    const std::int32_t id = ids[static_cast<std::size_t>(q)];
    std::vector<float> expected(static_cast<std::size_t>(d));
    for (std::int64_t c = 0; c < d; ++c)
      expected[static_cast<std::size_t>(c)] = wte.view()(id, c) + wpe.view()(q % T, c);
    ASSERT_TRUE(all_close("out row " + std::to_string(q) + " (id " + std::to_string(id) + ", t " +
                              std::to_string(q % T) + ")",
                          out.view().row(q), expected, {}));
  }
  EXPECT_TRUE(out.untouched("out"));
  Framed one(T, d);
  backend::combine(wte, wpe, std::span<const std::int32_t>(ids.data(), T), one);
  EXPECT_TRUE(
      all_close("combine, one sequence", one.view(), ConstFloatView(out.view().data(), T, d), {}));
  EXPECT_TRUE(one.untouched("out of combine"));
}

// What the kernel costs (lessons/05_combine/README.md): 64 positions of ANDREA-120M's width.
// x_t = wte[id_t] + wpe[t] reads two rows and writes one; each warp's 32 neighbouring floats
// take the 4 sectors their bytes need.
TEST(Efficiency, CombineMovesTheSectorsItsBytesNeed) {
  Matrix wte(64, 768), wpe(64, 768), out(64, 768);
  std::iota(wte.view().data(), wte.view().data() + wte.view().size(), 0.0f);
  std::iota(wpe.view().data(), wpe.view().data() + wpe.view().size(), 1.0f);
  std::vector<std::int32_t> ids(64);
  for (int t = 0; t < 64; ++t) ids[t] = (37 * t + 5) % 64;
  expect_within_cost([&] { backend::combine(wte, wpe, ids, out); },
                     {.max_waste = 1.25,
                      .waste_hint = "give threadIdx.x the column (thread i adds columns i, "
                                    "i + blockDim.x, ...), so that a warp reads 128 contiguous "
                                    "bytes of each row"});
}

}  // namespace
