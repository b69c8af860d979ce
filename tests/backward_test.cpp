// Lesson 8 — the backward pass: dwte[v] += sum of dout[p] where ids[p] = v, dwpe[t] += sum
// over b of dout[b * n + t], and the sparse SGD step. Checked against hand-worked cases and
// golden/backward.json (x = wte(ids) + wpe(pos); x.backward(dout) in PyTorch autograd).
//
// backend::wte_backward / wpe_backward / embedding_backward are the reference or, under
// CUDA, the deterministic kernels: both must give the same bits. The atomic kernel and the
// thread-order experiments are at the end (CUDA only).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"
#include "tests/support/efficiency.hpp"
#include "cudasim/launch.hpp"  // cudasim::set_thread_order, set_worker_threads
#include "reference/backward.hpp"
#include "cuda/backward.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

// A (rows, cols) matrix holding `values` row after row.
Matrix matrix(std::int64_t rows, std::int64_t cols, std::initializer_list<float> values) {
  Matrix m(rows, cols);
  std::copy(values.begin(), values.end(), m.view().data());
  return m;
}

Matrix filled(std::int64_t rows, std::int64_t cols, float value) {
  Matrix m(rows, cols);
  std::fill_n(m.view().data(), m.view().size(), value);
  return m;
}

// --- Hand-worked cases (the issue's) ------------------------------------------------

// V = 3, d = 2, ids = [1, 1, 1], dout = [[1, 2], [3, 4], [5, 6]]: dwte[1] = [9, 12].
TEST(Backward, OneIdThreeTimes) {
  const std::int32_t ids[] = {1, 1, 1};
  const Matrix dout = matrix(3, 2, {1, 2, 3, 4, 5, 6});
  Matrix dwte(3, 2), dwpe(3, 2);
  backend::embedding_backward(TokenIdBatch(ids, 1, 3), dout, dwte, dwpe);
  EXPECT_TRUE(all_close("dwte", dwte, matrix(3, 2, {0, 0, 9, 12, 0, 0}), {}));
  EXPECT_TRUE(all_close("dwpe", dwpe, dout, {}));  // B = 1: each position once
}

// B = 2, n = 2, T = 3: dwpe[t] = dout[t] + dout[2 + t]; dwpe[2] (no position 2) stays 0.
TEST(Backward, PositionGradientSumsOverTheBatch) {
  const std::int32_t ids[] = {0, 2,  //
                              2, 1};
  const Matrix dout = matrix(4, 2,
                             {1, 2, 3, 4,    //  sequence 0
                              5, 6, 7, 8});  // sequence 1
  Matrix dwte(3, 2), dwpe(3, 2);
  backend::embedding_backward(TokenIdBatch(ids, 2, 2), dout, dwte, dwpe);
  EXPECT_TRUE(all_close("dwpe", dwpe, matrix(3, 2, {6, 8, 10, 12, 0, 0}), {}));
  EXPECT_TRUE(all_close("dwte", dwte, matrix(3, 2, {1, 2, 7, 8, 8, 10}), {}));
}

TEST(Backward, PiecesAgreeWithTheWhole) {
  const std::int32_t ids[] = {0, 2, 2, 1};
  const Matrix dout = matrix(4, 2, {1, 2, 3, 4, 5, 6, 7, 8});
  Matrix dwte(3, 2), dwpe(3, 2);
  backend::wte_backward(TokenIdBatch(ids, 2, 2), dout, dwte);
  backend::wpe_backward(dout, 2, dwpe);
  EXPECT_TRUE(all_close("dwte", dwte, matrix(3, 2, {1, 2, 7, 8, 8, 10}), {}));
  EXPECT_TRUE(all_close("dwpe", dwpe, matrix(3, 2, {6, 8, 10, 12, 0, 0}), {}));
}

// The gradients accumulate (+=), as PyTorch's .grad: two calls give twice the gradient,
// and a pre-filled buffer keeps what it held.
TEST(Backward, AccumulatesIntoPrefilledBuffers) {
  const std::int32_t ids[] = {1, 1, 1};
  const Matrix dout = matrix(3, 2, {1, 2, 3, 4, 5, 6});
  Matrix dwte = filled(3, 2, 0.5f), dwpe = filled(3, 2, -1.0f);
  backend::embedding_backward(TokenIdBatch(ids, 1, 3), dout, dwte, dwpe);
  EXPECT_TRUE(
      all_close("dwte after one call", dwte, matrix(3, 2, {0.5, 0.5, 9.5, 12.5, 0.5, 0.5}), {}));
  backend::embedding_backward(TokenIdBatch(ids, 1, 3), dout, dwte, dwpe);
  EXPECT_TRUE(
      all_close("dwte after two calls", dwte, matrix(3, 2, {0.5, 0.5, 18.5, 24.5, 0.5, 0.5}), {}));
  EXPECT_TRUE(all_close("dwpe after two calls", dwpe, matrix(3, 2, {1, 3, 5, 7, 9, 11}), {}));
}

// Rows whose id does not occur are not written at all: not even a += 0 (which would turn
// -0.0 into +0.0 and would cost a pass over all V rows).
TEST(Backward, UnseenRowsKeepTheirBits) {
  const std::int32_t ids[] = {3, 0, 3, 3};
  const Matrix& dout = init_table(Table::token, 4, 5, 8);
  Matrix dwte = init_table(Table::position, 7, 5), before(7, 5);
  dwte(1, 2) = -0.0f;
  dwte(5, 4) = std::numeric_limits<float>::quiet_NaN();
  std::copy_n(dwte.view().data(), dwte.view().size(), before.view().data());
  backend::wte_backward(TokenIdBatch(ids, 1, 4), dout, dwte);
  for (const std::int64_t row : {1, 2, 4, 5, 6}) {
    EXPECT_EQ(std::memcmp(dwte.row(row).data(), before.row(row).data(), 5 * sizeof(float)), 0)
        << "dwte row " << row << " (an id that does not occur) was written";
  }
}

// The contract: each row's contributions are added in ascending flat position, starting from
// the buffer's value. With 2^24 = 16777216 the spacing of floats is 2, so the order shows:
//   ascending  ((0 + 2^24) + 1) + 1 - 2^24 = 0   (each + 1 rounds back to 2^24, ties to even)
//   descending ((0 - 2^24) + 1) + 1 + 2^24 = 2   (exact: below 2^24 the spacing is 1)
TEST(Backward, SumsInAscendingPositionOrder) {
  const std::int32_t ids[] = {0, 0, 0, 0};
  const Matrix dout = matrix(4, 1, {16777216.0f, 1.0f, 1.0f, -16777216.0f});
  Matrix dwte(1, 1), dwpe(4, 1);
  backend::embedding_backward(TokenIdBatch(ids, 1, 4), dout, dwte, dwpe);
  EXPECT_EQ(dwte(0, 0), 0.0f) << "the sum must be taken in ascending position order";
}

// dwpe in ascending b, the same way: sequence b = 0 first.
TEST(Backward, PositionSumsInAscendingBatchOrder) {
  const Matrix dout = matrix(4, 1, {16777216.0f, 1.0f, 1.0f, -16777216.0f});
  Matrix dwpe(1, 1);
  backend::wpe_backward(dout, 1, dwpe);  // B = 4 sequences of length 1
  EXPECT_EQ(dwpe(0, 0), 0.0f) << "the sum over b must be taken in ascending b";
}

// Every width, and a long run of one id among others: the definition written out, exactly.
class BackwardWidth : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(BackwardWidth, EqualsTheDefinitionBitForBit) {
  const std::int64_t d = GetParam(), B = 3, n = 40, V = 11, T = 41;
  std::vector<std::int32_t> ids(static_cast<std::size_t>(B * n));
  for (std::size_t p = 0; p < ids.size(); ++p)
    ids[p] = p % 3 == 0 ? 7 : static_cast<std::int32_t>(p * 5 % V);
  const Matrix& dout = init_table(Table::token, B * n, d, 8);
  Matrix dwte = init_table(Table::token, V, d), dwpe = init_table(Table::position, T, d);
  Matrix expected_wte = dwte, expected_wpe = dwpe;
  for (std::int64_t p = 0; p < B * n; ++p) {
    for (std::int64_t c = 0; c < d; ++c) {
      expected_wte(ids[static_cast<std::size_t>(p)], c) += dout(p, c);
      expected_wpe(p % n, c) += dout(p, c);
    }
  }
  backend::embedding_backward(TokenIdBatch(ids.data(), B, n), dout, dwte, dwpe);
  EXPECT_TRUE(all_close("dwte", dwte, expected_wte, {}));
  EXPECT_TRUE(all_close("dwpe", dwpe, expected_wpe, {}));
}

INSTANTIATE_TEST_SUITE_P(Widths, BackwardWidth, ::testing::Values(1, 3, 8, 769));

// --- Goldens from PyTorch autograd ----------------------------------------------------

std::vector<std::int32_t> flat_ids(const json& batch) {
  std::vector<std::int32_t> flat;
  for (const json& seq : batch) {
    for (const std::int32_t id : to_ids(seq)) flat.push_back(id);
  }
  return flat;
}

void expect_golden_case(const char* name) {
  const json& c = golden_case("backward", name);
  const Config config = config_of(c);
  const std::int64_t B = c.at("B"), n = c.at("n");
  const std::vector<std::int32_t> ids = flat_ids(c.at("ids"));
  const Matrix dout = to_matrix(c.at("dout"));
  Matrix dwte(config.vocab_size, config.d_model), dwpe(config.context_length, config.d_model);
  if (c.contains("prefill")) {  // .grad held the init tables before the call
    dwte = token_table(config);
    dwpe = position_table(config);
  }
  backend::embedding_backward(TokenIdBatch(ids.data(), B, n), dout, dwte, dwpe);
  EXPECT_TRUE(all_close("dwte", dwte, to_matrix(c.at("dwte")), tolerance_of(c)));
  EXPECT_TRUE(all_close("dwpe", dwpe, to_matrix(c.at("dwpe")), tolerance_of(c)));
}

TEST(Backward, GoldenTiny) { expect_golden_case("tiny"); }
TEST(Backward, GoldenTinyBatch) { expect_golden_case("tiny-batch"); }
TEST(Backward, GoldenTinyAccumulate) { expect_golden_case("tiny-accumulate"); }
TEST(Backward, GoldenOddWidth) { expect_golden_case("odd-width"); }

std::vector<float> norms_of(ConstFloatView m, const std::vector<std::int32_t>& rows, double* sum) {
  std::vector<float> norms;
  for (const std::int32_t r : rows) {
    double squares = 0.0;
    for (const float v : m.row(r)) squares += double{v} * v;
    norms.push_back(static_cast<float>(std::sqrt(squares)));
  }
  *sum = 0.0;
  for (const float v : m.flat()) *sum += v;
  return norms;
}

// B = 2, n = 1024: the example sequence, and a sequence where 256, 1842 and 7301 fill three
// positions out of four. Stored as a summary: which rows are non-zero, their norms, a few rows.
TEST(Backward, GoldenAndrea120mBatch) {
  const json& c = golden_case("backward", "andrea-120m-batch");
  const std::int64_t n = 1024, d = andrea_120m.d_model;
  const std::vector<std::int32_t> example = example_ids(n, andrea_120m.vocab_size);
  std::vector<std::int32_t> ids(example);
  const std::int32_t repeated[] = {256, 1842, 7301};
  for (std::int64_t t = 0; t < n; ++t)
    ids.push_back(t % 4 < 3 ? repeated[t % 4] : example[static_cast<std::size_t>(t)]);
  const Matrix& dout = init_table(Table::token, 2 * n, d, 8);
  Matrix dwte(andrea_120m.vocab_size, d), dwpe(n, d);
  backend::embedding_backward(TokenIdBatch(ids.data(), 2, n), dout, dwte, dwpe);

  const std::vector<std::int32_t> nonzero = to_ids(c.at("nonzero_rows"));
  std::vector<bool> listed(static_cast<std::size_t>(andrea_120m.vocab_size), false);
  for (const std::int32_t r : nonzero) listed[static_cast<std::size_t>(r)] = true;
  for (std::int64_t r = 0; r < dwte.rows(); ++r) {
    if (listed[static_cast<std::size_t>(r)]) continue;
    for (const float v : dwte.row(r))
      ASSERT_EQ(v, 0.0f) << "dwte row " << r << " (id not in the batch)";
  }
  for (const auto& [row, values] : c.at("dwte_rows").items()) {
    EXPECT_TRUE(all_close("dwte row " + row, dwte.row(std::stoll(row)), to_floats(values),
                          tolerance_of(c)));
  }
  for (const auto& [row, values] : c.at("dwpe_rows").items()) {
    EXPECT_TRUE(all_close("dwpe row " + row, dwpe.row(std::stoll(row)), to_floats(values),
                          tolerance_of(c)));
  }
  double sum = 0.0;
  EXPECT_TRUE(all_close("dwte norms of the non-zero rows", norms_of(dwte, nonzero, &sum),
                        to_floats(c.at("dwte_row_norms")), tolerance_of(c, "norm_tolerance")));
  EXPECT_TRUE(
      close("sum of dwte", sum, c.at("dwte_sum").get<double>(), tolerance_of(c, "sum_tolerance")));
  std::vector<std::int32_t> all_positions(static_cast<std::size_t>(n));
  for (std::int32_t t = 0; t < n; ++t) all_positions[static_cast<std::size_t>(t)] = t;
  EXPECT_TRUE(all_close("dwpe row norms", norms_of(dwpe, all_positions, &sum),
                        to_floats(c.at("dwpe_row_norms")), tolerance_of(c, "norm_tolerance")));
  EXPECT_TRUE(
      close("sum of dwpe", sum, c.at("dwpe_sum").get<double>(), tolerance_of(c, "sum_tolerance")));
}

// --- Bad input: the message names the value and the bound; no buffer is written. -------

class BackwardBadInput : public ::testing::Test {
 protected:
  std::int32_t ids[6] = {0, 1, 2, 2, 1, 0};  // (2, 3)
  Matrix dout = filled(6, 2, 1.0f);
  Matrix dwte = filled(3, 2, -7.0f), dwpe = filled(3, 2, -7.0f);
  TokenIdBatch batch() const { return TokenIdBatch(ids, 2, 3); }
  void expect_untouched() {
    for (const float x : dwte.view().flat()) ASSERT_EQ(x, -7.0f) << "dwte was written";
    for (const float x : dwpe.view().flat()) ASSERT_EQ(x, -7.0f) << "dwpe was written";
  }
};

TEST_F(BackwardBadInput, IdOutOfRange) {
  ids[4] = 3;
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), dout, dwte, dwpe),
                     "token id 3 at position 4 is outside [0, 3)");
  EXPECT_INPUT_ERROR(backend::wte_backward(batch(), dout, dwte),
                     "token id 3 at position 4 is outside [0, 3)");
  expect_untouched();
}

TEST_F(BackwardBadInput, NegativeId) {
  ids[1] = -1;
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), dout, dwte, dwpe),
                     "token id -1 at position 1 is outside [0, 3)");
  expect_untouched();
}

TEST_F(BackwardBadInput, DoutRowsAreNotBTimesN) {
  const Matrix short_dout = filled(5, 2, 1.0f);
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), short_dout, dwte, dwpe),
                     "dout has shape (5, 2), expected (6, 2)");
  EXPECT_INPUT_ERROR(backend::wpe_backward(short_dout, 3, dwpe),
                     "dout has 5 rows, not a whole number of sequences of length 3");
  expect_untouched();
}

TEST_F(BackwardBadInput, DoutWidthIsNotDModel) {
  const Matrix wide = filled(6, 3, 1.0f);
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), wide, dwte, dwpe),
                     "dout has shape (6, 3), expected (6, 2)");
  EXPECT_INPUT_ERROR(backend::wpe_backward(wide, 3, dwpe),
                     "dout has shape (6, 3), expected (6, 2)");
  expect_untouched();
}

TEST_F(BackwardBadInput, PositionBufferOfAnotherWidth) {
  Matrix dwpe3 = filled(3, 3, -7.0f);
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), dout, dwte, dwpe3),
                     "dwpe has shape (3, 3), expected (3, 2)");
  for (const float x : dwpe3.view().flat()) ASSERT_EQ(x, -7.0f) << "dwpe was written";
  expect_untouched();
}

TEST_F(BackwardBadInput, EmptyGradientBuffer) {
  Matrix none(0, 2);
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), dout, none, dwpe),
                     "dwte is empty: shape (0, 2)");
  EXPECT_INPUT_ERROR(backend::wpe_backward(dout, 3, none), "dwpe is empty: shape (0, 2)");
  expect_untouched();
}

TEST_F(BackwardBadInput, SequenceLongerThanContext) {
  Matrix dwpe2 = filled(2, 2, -7.0f);  // T = 2 < n = 3
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), dout, dwte, dwpe2),
                     "sequence length 3 exceeds context length 2");
  EXPECT_INPUT_ERROR(backend::wpe_backward(dout, 3, dwpe2),
                     "sequence length 3 exceeds context length 2");
  for (const float x : dwpe2.view().flat()) ASSERT_EQ(x, -7.0f) << "dwpe was written";
  expect_untouched();
}

TEST_F(BackwardBadInput, NonFiniteDout) {
  dout(3, 1) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), dout, dwte, dwpe),
                     "dout[7] is nan: a finite value is required");
  dout(3, 1) = -std::numeric_limits<float>::infinity();
  EXPECT_INPUT_ERROR(backend::wpe_backward(dout, 3, dwpe),
                     "dout[7] is -inf: a finite value is required");
  expect_untouched();
}

// Far into a large dout: the first bad element is named wherever it lies (the finiteness
// scan works in blocks of 4,096 floats, then 8 at a time, then one at a time).
TEST_F(BackwardBadInput, NonFiniteFarIntoDout) {
  Matrix big = filled(6, 1366, 0.25f);  // 8,196 floats
  Matrix wide_wte = filled(3, 1366, -7.0f), wide_wpe = filled(3, 1366, -7.0f);
  big.view().data()[8195] = std::numeric_limits<float>::infinity();
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), big, wide_wte, wide_wpe),
                     "dout[8195] is inf: a finite value is required");
  big.view().data()[4096] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_INPUT_ERROR(backend::embedding_backward(batch(), big, wide_wte, wide_wpe),
                     "dout[4096] is nan: a finite value is required");
  for (const float x : wide_wte.view().flat()) ASSERT_EQ(x, -7.0f) << "dwte was written";
  for (const float x : wide_wpe.view().flat()) ASSERT_EQ(x, -7.0f) << "dwpe was written";
}

TEST_F(BackwardBadInput, EmptyBatch) {
  EXPECT_INPUT_ERROR(backend::wte_backward(TokenIdBatch(ids, 0, 3), Matrix(0, 2), dwte),
                     "ids is empty: shape (0, 3)");
  expect_untouched();
}

// --- The sparse SGD step (C++ reference only) -------------------------------------------
ANDREA_ONLY_ON("SgdStepRows.*", "cpu");

TEST(SgdStepRows, StepsOnlyTheRowsThatOccurOncePerId) {
  const std::int32_t ids[] = {2, 0, 2, 2};
  const Matrix dw = matrix(4, 2, {1, 2, 3, 4, 5, 6, 7, 8});
  Matrix w = matrix(4, 2, {10, 10, 20, 20, 30, 30, -0.0f, 40});
  backend::sgd_step_rows(ids, dw, 0.5f, w);
  // rows 0 and 2 move once each (id 2 occurs three times: dw[2] is already the sum)
  EXPECT_TRUE(all_close("w", w, matrix(4, 2, {9.5, 9, 20, 20, 27.5, 27, -0.0f, 40}), {}));
  EXPECT_TRUE(std::signbit(w(3, 0))) << "row 3 (id not in the batch) was written";
}

TEST(SgdStepRows, UnseenRowsAreBitIdentical) {
  const std::int32_t ids[] = {3, 0, 3};
  const Matrix& dw = init_table(Table::token, 6, 5, 8);
  Matrix w = init_table(Table::position, 6, 5), before = w;
  backend::sgd_step_rows(ids, dw, 1e-3f, w);
  for (const std::int64_t row : {1, 2, 4, 5}) {
    EXPECT_EQ(std::memcmp(w.row(row).data(), before.row(row).data(), 5 * sizeof(float)), 0)
        << "w row " << row << " (an id that does not occur) changed";
  }
  for (const std::int64_t row : {0, 3}) {
    for (std::int64_t c = 0; c < 5; ++c) EXPECT_EQ(w(row, c), before(row, c) - 1e-3f * dw(row, c));
  }
}

// torch.optim.SGD on the golden tiny batch's gradient: rows 2 and 4 do not occur.
TEST(SgdStepRows, GoldenTinySgd) {
  const json& c = golden_case("backward", "tiny-sgd");
  const Config config = config_of(c);
  const json& g = golden_case("backward", "tiny-batch");
  const std::vector<std::int32_t> ids = flat_ids(c.at("ids"));
  Matrix w = token_table(config);
  backend::sgd_step_rows(ids, to_matrix(g.at("dwte")), c.at("lr").get<float>(), w);
  EXPECT_TRUE(all_close("wte after the step", w, to_matrix(c.at("wte_after")), tolerance_of(c)));
  for (const std::int64_t row : {2, 4}) {
    EXPECT_EQ(
        std::memcmp(w.row(row).data(), token_table(config).row(row).data(), 4 * sizeof(float)), 0)
        << "wte row " << row << " (an id that does not occur) changed";
  }
}

TEST(SgdStepRows, BadLearningRate) {
  const std::int32_t ids[] = {0};
  const Matrix dw = filled(2, 2, 1.0f);
  Matrix w = filled(2, 2, -7.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  EXPECT_INPUT_ERROR(backend::sgd_step_rows(ids, dw, 0.0f, w),
                     "learning rate 0 is not a finite number > 0");
  EXPECT_INPUT_ERROR(backend::sgd_step_rows(ids, dw, -0.1f, w),
                     "learning rate -0.1 is not a finite number > 0");
  EXPECT_INPUT_ERROR(backend::sgd_step_rows(ids, dw, nan, w),
                     "learning rate nan is not a finite number > 0");
  EXPECT_INPUT_ERROR(backend::sgd_step_rows(ids, dw, inf, w),
                     "learning rate inf is not a finite number > 0");
  for (const float x : w.view().flat()) ASSERT_EQ(x, -7.0f) << "w was written";
}

TEST(SgdStepRows, BadIdOrShape) {
  const std::int32_t ids[] = {0, 2};
  const Matrix dw = filled(2, 2, 1.0f), dw3 = filled(2, 3, 1.0f);
  Matrix w = filled(2, 2, -7.0f);
  EXPECT_INPUT_ERROR(backend::sgd_step_rows(ids, dw, 0.1f, w),
                     "token id 2 at position 1 is outside [0, 2)");
  EXPECT_INPUT_ERROR(backend::sgd_step_rows({ids, 1}, dw3, 0.1f, w),
                     "dw has shape (2, 3), expected (2, 2)");
  for (const float x : w.view().flat()) ASSERT_EQ(x, -7.0f) << "w was written";
}

// zero_rows on every backend: after a step it clears exactly the rows the backward wrote.
TEST(ZeroRows, ClearsExactlyTheRowsTheBackwardWrote) {
  const std::int32_t ids[] = {1, 1, 3};
  const Matrix dout = matrix(3, 2, {1, 2, 3, 4, 5, 6});
  Matrix dwte = filled(5, 2, 0.0f);
  backend::wte_backward(TokenIdBatch(ids, 1, 3), dout, dwte);
  dwte(0, 0) = 42.0f;  // a row the batch did not touch keeps its value
  backend::zero_rows(ids, dwte);
  EXPECT_TRUE(all_close("dwte", dwte, matrix(5, 2, {42, 0, 0, 0, 0, 0, 0, 0, 0, 0}), {}));
  Matrix w = filled(5, 2, -7.0f);
  const std::int32_t bad[] = {0, 5};
  EXPECT_INPUT_ERROR(backend::zero_rows(bad, w), "token id 5 at position 1 is outside [0, 5)");
  for (const float x : w.view().flat()) ASSERT_EQ(x, -7.0f) << "dw was written";
}

TEST(ZeroRows, ClearsOnlyTheRowsNamed) {
  Matrix dw(4, 3);
  for (float& x : dw.view().flat()) x = 7.0f;
  const std::vector<std::int32_t> ids = {2, 0, 2};  // a repeated id writes 0 twice
  backend::zero_rows(ids, dw);
  const float expected[] = {0, 0, 0, 7, 7, 7, 0, 0, 0, 7, 7, 7};
  EXPECT_TRUE(all_close("dw", dw.view().flat(), expected, {}, 3));
}

// --- Step 1, the atomic kernel: right up to rounding, bits depend on the thread order ---
ANDREA_ONLY_ON("BackwardAtomic.*", "cudasim gpu");

TEST(BackwardAtomic, HandWorked) {   // small integers: exact in any order
  const std::int32_t ids[] = {0, 2,  //
                              2, 1};
  const Matrix dout = matrix(4, 2, {1, 2, 3, 4, 5, 6, 7, 8});
  Matrix dwte = filled(3, 2, 0.5f), dwpe(3, 2);
  backend::embedding_backward_atomic(TokenIdBatch(ids, 2, 2), dout, dwte, dwpe);
  EXPECT_TRUE(all_close("dwte", dwte, matrix(3, 2, {1.5, 2.5, 7.5, 8.5, 8.5, 10.5}), {}));
  EXPECT_TRUE(all_close("dwpe", dwpe, matrix(3, 2, {6, 8, 10, 12, 0, 0}), {}));
}

TEST(BackwardAtomic, GoldenTinyBatchWithinRounding) {
  const json& c = golden_case("backward", "tiny-batch");
  const Config config = config_of(c);
  const std::vector<std::int32_t> ids = flat_ids(c.at("ids"));
  Matrix dwte(config.vocab_size, config.d_model), dwpe(config.context_length, config.d_model);
  backend::embedding_backward_atomic(TokenIdBatch(ids.data(), 2, 3), to_matrix(c.at("dout")), dwte,
                                     dwpe);
  EXPECT_TRUE(all_close("dwte", dwte, to_matrix(c.at("dwte")), {1e-6, 1e-6}));
  EXPECT_TRUE(all_close("dwpe", dwpe, to_matrix(c.at("dwpe")), {1e-6, 1e-6}));
}

TEST(BackwardAtomic, BadInputWritesNothing) {
  const std::int32_t ids[] = {0, 1, 3};
  const Matrix dout = filled(3, 2, 1.0f);
  Matrix dwte = filled(3, 2, -7.0f), dwpe = filled(3, 2, -7.0f);
  EXPECT_INPUT_ERROR(backend::embedding_backward_atomic(TokenIdBatch(ids, 1, 3), dout, dwte, dwpe),
                     "token id 3 at position 2 is outside [0, 3)");
  for (const float x : dwte.view().flat()) ASSERT_EQ(x, -7.0f) << "dwte was written";
  for (const float x : dwpe.view().flat()) ASSERT_EQ(x, -7.0f) << "dwpe was written";
}

// Every (row, channel) of `got` equals `expected`; else names the row, the channel and how
// much went missing.
::testing::AssertionResult every_element(std::string_view what, ConstFloatView got,
                                         std::int64_t row, float expected) {
  for (std::int64_t c = 0; c < got.cols(); ++c) {
    if (got(row, c) != expected) {
      return ::testing::AssertionFailure()
             << what << " row " << row << " channel " << c << " holds " << got(row, c)
             << ", expected " << expected << ": " << expected - got(row, c)
             << " updates lost (two threads read the same old value: a plain += instead of "
                "atomicAdd?)";
    }
  }
  return ::testing::AssertionSuccess();
}

// 4,096 positions all hold id 2 and dout = 1: dwte[2] must count to 4,096 in every channel,
// dwpe[t] to 64 (B = 64). On a GPU a plain += loses most of them. Under the CPU execution
// layer the threads of one block never interleave inside a +=, but blocks run in parallel on
// worker threads, and with 8 of them 40 runs have always shown lost updates here (a race is a
// matter of chance: each run ends at the first failure).
TEST(BackwardAtomic, NoUpdateIsLost) {
  const std::int64_t B = 64, n = 64, d = 32;
  const std::vector<std::int32_t> ids(static_cast<std::size_t>(B * n), 2);
  const Matrix dout = filled(B * n, d, 1.0f);
  const bool on_the_layer = this_backend() == Backend::cudasim;
  const unsigned workers = on_the_layer ? cudasim::worker_threads() : 0;
  if (on_the_layer) cudasim::set_worker_threads(8);  // more threads racing for the same rows than cores
  for (int run = 0; run < 40 && !::testing::Test::HasFailure(); ++run) {
    Matrix dwte(3, d), dwpe(n, d);
    backend::embedding_backward_atomic(TokenIdBatch(ids.data(), B, n), dout, dwte, dwpe);
    EXPECT_TRUE(every_element("dwte", dwte, 2, static_cast<float>(B * n))) << "run " << run;
    EXPECT_TRUE(every_element("dwte", dwte, 0, 0.0f)) << "run " << run;
    EXPECT_TRUE(every_element("dwpe", dwpe, 0, static_cast<float>(B))) << "run " << run;
    EXPECT_TRUE(every_element("dwpe", dwpe, n - 1, static_cast<float>(B))) << "run " << run;
  }
  if (on_the_layer) cudasim::set_worker_threads(workers);
}

// The CPU execution layer runs the threads of a block in a chosen order (forward, reverse,
// random:seed). One block of 256 threads all adding into dwte[1][0]: the atomic kernel's
// result is the sum taken in that order, so its low bits change with the order; the
// deterministic kernel gives the ascending-position sum in every order.
ANDREA_ONLY_ON("BackwardThreadOrder.*", "cudasim");
class BackwardThreadOrder : public ::testing::Test {
 protected:
  static constexpr std::int64_t n = 256;
  std::vector<std::int32_t> ids = std::vector<std::int32_t>(n, 1);
  const Matrix& dout = init_table(Table::token, n, 1, 8);  // 256 draws of N(0, 1)
  cudasim::ThreadOrder saved = cudasim::thread_order();
  void TearDown() override { cudasim::set_thread_order(saved.order, saved.seed); }

  float sum(bool atomic, cudasim::Order order, std::uint64_t seed = 0) {
    cudasim::set_thread_order(order, seed);
    Matrix dwte(2, 1), dwpe(n, 1);
    if (atomic) {
      backend::embedding_backward_atomic(TokenIdBatch(ids.data(), 1, n), dout, dwte, dwpe);
    } else {
      backend::embedding_backward(TokenIdBatch(ids.data(), 1, n), dout, dwte, dwpe);
    }
    return dwte(1, 0);
  }
  float ascending() const {
    float s = 0.0f;
    for (std::int64_t p = 0; p < n; ++p) s += dout(p, 0);
    return s;
  }
};

TEST_F(BackwardThreadOrder, AtomicLowBitsDependOnTheOrder) {
  const float expected = ascending();
  const float forward = sum(true, cudasim::Order::forward);
  const float reverse = sum(true, cudasim::Order::reverse);
  std::vector<float> random;
  for (const std::uint64_t seed : {1, 2, 3})
    random.push_back(sum(true, cudasim::Order::random, seed));
  std::printf(
      "sum of 256 N(0,1) into one element: ascending %.9g; atomic forward %.9g reverse %.9g "
      "random:1 %.9g random:2 %.9g random:3 %.9g\n",
      expected, forward, reverse, random[0], random[1], random[2]);
  for (const float s : {forward, reverse, random[0], random[1], random[2]}) {
    EXPECT_TRUE(close("atomic sum", s, expected, {1e-5, 1e-6})) << "an atomic sum is still the sum";
  }
  EXPECT_NE(forward, reverse) << "forward and reverse thread orders gave the same bits";
  EXPECT_TRUE(random[0] != forward || random[1] != forward || random[2] != forward)
      << "three random thread orders all gave the forward order's bits";
}

TEST_F(BackwardThreadOrder, DeterministicSameBitsInEveryOrder) {
  const float expected = ascending();
  EXPECT_EQ(sum(false, cudasim::Order::forward), expected);
  EXPECT_EQ(sum(false, cudasim::Order::reverse), expected);
  for (const std::uint64_t seed : {1, 2, 3}) {
    EXPECT_EQ(sum(false, cudasim::Order::random, seed), expected) << "random:" << seed;
  }
}

// On a GPU: the deterministic kernels give the same bits on every run.
ANDREA_ONLY_ON("BackwardDeterministic.*", "gpu");
TEST(BackwardDeterministic, SameBitsOnEveryRun) {
  const std::int64_t B = 8, n = 128, d = 64;
  std::vector<std::int32_t> ids(static_cast<std::size_t>(B * n));
  for (std::size_t p = 0; p < ids.size(); ++p)
    ids[p] = p % 2 == 0 ? 5 : static_cast<std::int32_t>(p % 17);
  const Matrix& dout = init_table(Table::token, B * n, d, 8);
  Matrix first_wte(17, d), first_wpe(n, d);
  backend::embedding_backward(TokenIdBatch(ids.data(), B, n), dout, first_wte, first_wpe);
  for (int run = 0; run < 5; ++run) {
    Matrix dwte(17, d), dwpe(n, d);
    backend::embedding_backward(TokenIdBatch(ids.data(), B, n), dout, dwte, dwpe);
    EXPECT_TRUE(all_close("dwte", dwte, first_wte, {})) << "run " << run;
    EXPECT_TRUE(all_close("dwpe", dwpe, first_wpe, {})) << "run " << run;
  }
}

// The edges: ids 0 and V - 1, a full context (n = T: the last row of dwpe), both gradient
// buffers inside poisoned frames; small integers, so every sum is exact in any order.
void expect_edges(bool atomic) {
  const std::int64_t V = 7, T = 4, B = 2, d = 3;
  const std::vector<std::int32_t> ids = {6, 0, 6, 3, 0, 6, 2, 6};
  Matrix dout(B * T, d);
  for (std::int64_t q = 0; q < B * T; ++q) {
    for (std::int64_t c = 0; c < d; ++c)
      dout(q, c) = static_cast<float>(q + 1) + 0.5f * static_cast<float>(c);
  }
  Matrix expected_dwte(V, d), expected_dwpe(T, d);
  for (std::int64_t q = 0; q < B * T; ++q) {
    for (std::int64_t c = 0; c < d; ++c) {
      expected_dwte(ids[static_cast<std::size_t>(q)], c) += dout(q, c);
      expected_dwpe(q % T, c) += dout(q, c);
    }
  }
  Framed dwte = Framed::added_into(V, d), dwpe = Framed::added_into(T, d);
  dwte.fill(0.0f), dwpe.fill(0.0f);
  if (atomic) {
    backend::embedding_backward_atomic(TokenIdBatch(ids.data(), B, T), dout, dwte, dwpe);
  } else {
    backend::embedding_backward(TokenIdBatch(ids.data(), B, T), dout, dwte, dwpe);
  }
  EXPECT_TRUE(
      all_close("dwte (row V - 1 = 6 sums 4 rows of dout)", dwte.view(), expected_dwte, {}));
  EXPECT_TRUE(all_close("dwpe (n = T: row T - 1 = 3 is the last)", dwpe.view(), expected_dwpe, {}));
  EXPECT_TRUE(dwte.untouched("dwte"));
  EXPECT_TRUE(dwpe.untouched("dwpe"));
}

TEST(Backward, EdgesLastRowsInsideAPoisonedFrame) { expect_edges(false); }
TEST(BackwardAtomic, EdgesLastRowsInsideAPoisonedFrame) { expect_edges(true); }
TEST(SgdStepRows, EdgesLastRowInsideAPoisonedFrame) {
  const std::int32_t ids[] = {4, 0, 4};
  const Framed dw(matrix(5, 2, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  Framed w = Framed::added_into(5, 2);
  w.fill(1.0f);
  backend::sgd_step_rows(ids, dw, 0.5f, w);
  EXPECT_TRUE(all_close("w (rows 0 and V - 1 = 4 move, once each)", w.view(),
                        matrix(5, 2, {0.5f, 0, 1, 1, 1, 1, 1, 1, -3.5f, -4}), {}));
  EXPECT_TRUE(w.untouched("w"));
  Framed zeroed(dw.view());
  backend::zero_rows(ids, zeroed);
  EXPECT_TRUE(all_close("dw after zero_rows of ids 4, 0", zeroed.view(),
                        matrix(5, 2, {0, 0, 3, 4, 5, 6, 7, 8, 0, 0}), {}));
  EXPECT_TRUE(zeroed.untouched("dw"));
}

// What the kernels cost (lessons/08_backward/README.md): a batch of 2 sequences of 32 ids that
// repeat every 5 positions, d_model 256. The atomic step adds each element of dout once into
// dwte and once into dwpe: 2 * 64 * 256 atomics, at most 13 on one address (id 0 occurs 13
// times in the batch); the deterministic step adds in a fixed order, with no atomic at all.
struct CostCase {
  std::vector<std::int32_t> ids;
  Matrix dout{64, 256}, dwte{5, 256}, dwpe{32, 256};
  CostCase() {
    for (int p = 0; p < 64; ++p) ids.push_back(p % 5);
    for (std::int64_t i = 0; i < dout.view().size(); ++i)
      dout.view().data()[i] = static_cast<float>(i % 11) - 5.0f;
  }
};

TEST(Efficiency, AtomicBackwardAddsEachElementOnceCoalesced) {
  CostCase c;
  expect_within_cost(
      [&] {
        backend::embedding_backward_atomic(TokenIdBatch(c.ids.data(), 2, 32), c.dout, c.dwte,
                                           c.dwpe);
      },
      {.max_waste = 1.25,
       .waste_hint = "number the threads along the row (i = p * d + c, c the fastest), so that a "
                     "warp adds into 32 neighbouring floats",
       .max_atomics = 2 * 64 * 256,
       .max_contention = 13,
       .atomic_hint = "one atomicAdd per element of dout into dwte and one into dwpe (at row "
                      "p % n), and no other"});
}

TEST(Efficiency, DeterministicBackwardSumsEachElementInOneThread) {
  CostCase c;
  expect_within_cost(
      [&] { backend::embedding_backward(TokenIdBatch(c.ids.data(), 2, 32), c.dout, c.dwte, c.dwpe); },
      {.max_waste = 1.25,
       .waste_hint = "give threadIdx.x the column, so that a warp reads and writes 32 neighbouring "
                     "floats of a row",
       .max_atomics = 0,
       .atomic_hint = "the deterministic step sums each element of dwte and dwpe in one thread, "
                      "in a fixed order: no atomicAdd"});
}

}  // namespace
