// Lesson 1 — lookup. Checked against golden/lookup.json (torch.nn.Embedding)
// and hand-worked cases.
#include <cmath>
#include <functional>
#include <numeric>
#include <string>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/efficiency.hpp"
#include "tests/support/framed.hpp"
#include "reference/lookup.hpp"
#include "cuda/lookup.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

// A 3 x 2 table whose entries are easy to read: row r is [2r, 2r + 1].
Matrix small_table() {
  Matrix wte(3, 2);
  for (int i = 0; i < 6; ++i) wte.view().data()[i] = static_cast<float>(i);
  return wte;
}

TEST(Lookup, HandWorkedRowsAreCopied) {
  const Matrix wte = small_table();
  const std::vector<std::int32_t> ids = {2, 0, 2};
  Matrix out(3, 2);
  backend::lookup(wte, ids, out);
  const float expected[] = {4, 5, 0, 1, 4, 5};
  EXPECT_TRUE(all_close("out", out.view().flat(), expected, {}, 2));
}

void expect_golden_case(const char* name) {
  const json& c = golden_case("lookup", name);
  const Config config = config_of(c);
  const Matrix& wte = token_table(config);
  const std::vector<std::int32_t> ids = to_ids(c.at("ids"));
  Matrix out(static_cast<std::int64_t>(ids.size()), config.d_model);
  backend::lookup(wte, ids, out);
  EXPECT_TRUE(all_close("out", out, to_matrix(c.at("out")), tolerance_of(c)));
}

TEST(Lookup, GoldenTiny) { expect_golden_case("tiny"); }
TEST(Lookup, GoldenOddWidth) { expect_golden_case("odd-width"); }

TEST(Lookup, GoldenAndrea120mExampleSequence) {
  const json& c = golden_case("lookup", "andrea-120m-example");
  const Tolerance tol = tolerance_of(c);
  const Matrix& wte = token_table(andrea_120m);
  const std::vector<std::int32_t> ids = example_ids(1024, andrea_120m.vocab_size);
  ASSERT_EQ(std::vector<std::int32_t>(ids.begin(), ids.begin() + 8), to_ids(c.at("ids_head")));
  ASSERT_EQ(std::accumulate(ids.begin(), ids.end(), std::int64_t{0}), c.at("ids_sum"));

  Matrix out(1024, andrea_120m.d_model);
  backend::lookup(wte, ids, out);
  for (const auto& [row, values] : c.at("rows").items()) {
    EXPECT_TRUE(all_close("out row " + row, out.row(std::stoll(row)), to_floats(values), tol));
  }
  std::vector<float> norms;
  double sum = 0.0;
  for (std::int64_t r = 0; r < out.rows(); ++r) {
    double squares = 0.0;
    for (const float x : out.row(r)) {
      squares += double{x} * x;
      sum += x;
    }
    norms.push_back(static_cast<float>(std::sqrt(squares)));
  }
  EXPECT_TRUE(all_close("row norms", norms, to_floats(c.at("row_norms")),
                        tolerance_of(c, "norm_tolerance")));
  EXPECT_TRUE(close("sum of x", sum, c.at("sum").get<double>(), tolerance_of(c, "sum_tolerance")));
}

// Bad input: a clear error naming the value and the bound, and nothing written.
class LookupBadInput : public ::testing::Test {
 protected:
  Matrix wte = small_table();
  Matrix out{3, 2};
  void SetUp() override { std::fill_n(out.view().data(), out.view().size(), -7.0f); }
  void expect_untouched() {
    for (const float x : out.view().flat()) ASSERT_EQ(x, -7.0f) << "out was written";
  }
};

// `call` must refuse ids[position] with check::token_ids's message, which names its position in
// the whole of ids. When the message differs, the failure shows both, and says why a check made
// one id at a time (check::token_ids on a span of one id, inside the copy loop) names it 0.
::testing::AssertionResult refuses_id_at(const std::function<void()>& call,
                                         const std::vector<std::int32_t>& ids,
                                         std::size_t position, std::int64_t vocab_size) {
  std::string listed;
  for (const std::int32_t id : ids) listed += (listed.empty() ? "" : ", ") + std::to_string(id);
  const std::string bad = std::to_string(ids[position]);
  const std::string want = "token id " + bad + " at position " + std::to_string(position) +
                           " is outside [0, " + std::to_string(vocab_size) + ")";
  try {
    call();
  } catch (const InputError& e) {
    const std::string said = e.what();
    if (said.find(want) != std::string::npos) return ::testing::AssertionSuccess();
    auto failure = ::testing::AssertionFailure()
                   << "ids {" << listed << "}: the bad id " << bad << " is at position "
                   << position << ", and the message must say \"" << want << "\"; yours said \""
                   << said << "\"";
    if (position != 0 && said.find("at position 0") != std::string::npos) {
      failure << ": a check of one id at a time (inside the copy loop) sees each id at position "
                 "0 of its own span; check the whole of ids before the first copy "
                 "(check::token_ids(ids, wte.rows()))";
    }
    return failure;
  }
  return ::testing::AssertionFailure() << "ids {" << listed << "} were accepted: the id " << bad
                                       << " at position " << position << " is outside [0, "
                                       << vocab_size << ") and must be refused (\"" << want
                                       << "\")";
}

TEST_F(LookupBadInput, IdEqualToVocabSize) {
  const std::vector<std::int32_t> ids = {0, 1, 3};
  EXPECT_TRUE(refuses_id_at([&] { backend::lookup(wte, ids, out); }, ids, 2, 3));
  expect_untouched();
}

TEST_F(LookupBadInput, NegativeId) {
  const std::vector<std::int32_t> ids = {-1, 1, 2};
  EXPECT_TRUE(refuses_id_at([&] { backend::lookup(wte, ids, out); }, ids, 0, 3));
  expect_untouched();
}

TEST_F(LookupBadInput, EmptySequence) {
  EXPECT_INPUT_ERROR(backend::lookup(wte, {}, out), "empty sequence");
  expect_untouched();
}

TEST_F(LookupBadInput, OutputShapeDisagrees) {
  const std::vector<std::int32_t> ids = {0, 1};
  EXPECT_INPUT_ERROR(backend::lookup(wte, ids, out), "out has shape (3, 2), expected (2, 2)");
  expect_untouched();
}

TEST_F(LookupBadInput, EmptyTable) {
  const std::vector<std::int32_t> ids = {0, 0, 0};
  EXPECT_INPUT_ERROR(backend::lookup(ConstFloatView(wte.view().data(), 0, 2), ids, out),
                     "wte is empty: shape (0, 2)");
  EXPECT_INPUT_ERROR(backend::lookup(ConstFloatView(wte.view().data(), 3, 0), ids, out),
                     "wte is empty: shape (3, 0)");
  expect_untouched();
}

// Widths that rule out 16-byte vector loads (d % 4 != 0) and one that allows them:
// every output row must be exactly the table row its id selects.
class LookupWidth : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(LookupWidth, RowsAreExactCopies) {
  const std::int64_t d = GetParam();
  const Matrix& wte = init_table(Table::token, 11, d);
  const std::vector<std::int32_t> ids = {10, 0, 7, 7, 3};
  Matrix out(5, d);
  backend::lookup(wte, ids, out);
  for (std::int64_t t = 0; t < 5; ++t) {
    EXPECT_TRUE(all_close("out row " + std::to_string(t), out.row(t),
                          wte.row(ids[static_cast<std::size_t>(t)]), {}));
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, LookupWidth, ::testing::Values(1, 3, 5, 7, 8, 769));

TEST(Lookup, AndreaLastRowAndFirstOutOfRangeId) {
  const Matrix& wte = token_table(andrea_120m);
  Matrix out(2, andrea_120m.d_model);
  const std::vector<std::int32_t> last = {8448, 0};
  backend::lookup(wte, last, out);
  EXPECT_TRUE(all_close("row 8448", out.row(0), wte.row(8448), {}));
  const std::vector<std::int32_t> bad = {0, 8449};
  EXPECT_TRUE(refuses_id_at([&] { backend::lookup(wte, bad, out); }, bad, 1, 8449));
}

// Awkward sizes, a random table, random ids ending with V - 1, a poisoned output: every row
// must be overwritten with the table row of its id, and no thread may step outside.
class LookupAwkward : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(LookupAwkward, RandomIdsOverwriteEveryPoisonedRow) {
  const std::int64_t d = GetParam();
  const Matrix& wte = init_table(Table::token, kAwkwardVocab, d, 99);
  const std::vector<std::int32_t> ids = random_ids(kAwkwardRows, kAwkwardVocab);
  Matrix out = poisoned(kAwkwardRows, d);
  backend::lookup(wte, ids, out);
  for (std::int64_t t = 0; t < kAwkwardRows; ++t) {
    const std::int32_t id = ids[static_cast<std::size_t>(t)];
    ASSERT_TRUE(all_close("out row " + std::to_string(t) + " (id " + std::to_string(id) + ")",
                          out.row(t), wte.row(id), {}));
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, LookupAwkward, ::testing::ValuesIn(kAwkwardWidths));

// The edges: the table inside a poisoned frame (a read of row -1 or row V returns NaN), ids
// 0 and V - 1, and the output framed too: every row written, none past it.
TEST(Lookup, EdgesFirstAndLastRowInsideAPoisonedFrame) {
  const std::int64_t V = kAwkwardVocab, d = 37;
  const Framed wte(init_table(Table::token, V, d, 5));
  const std::vector<std::int32_t> ids = {static_cast<std::int32_t>(V - 1), 0,
                                         static_cast<std::int32_t>(V - 1), 1,
                                         static_cast<std::int32_t>(V - 2)};
  Framed out(5, d);
  out.fill(kPoison);
  backend::lookup(wte, ids, out);
  for (std::int64_t t = 0; t < 5; ++t) {
    const std::int32_t id = ids[static_cast<std::size_t>(t)];
    ASSERT_TRUE(all_close("out row " + std::to_string(t) + " (id " + std::to_string(id) + ")",
                          out.view().row(t), wte.view().row(id), {}));
  }
  EXPECT_TRUE(out.untouched("out"));
}

// What the kernel costs (lessons/01_lookup/README.md): 64 rows of ANDREA-120M's width. A copy
// reads each byte once and writes it once; a warp that reads 32 neighbouring floats takes the
// 4 sectors (128 bytes) its bytes need.
TEST(Efficiency, LookupMovesTheSectorsItsBytesNeed) {
  Matrix wte(64, 768), out(64, 768);
  std::iota(wte.view().data(), wte.view().data() + wte.view().size(), 0.0f);
  std::vector<std::int32_t> ids(64);
  std::iota(ids.begin(), ids.end(), 0);
  expect_within_cost([&] { backend::lookup(wte, ids, out); },
                     {.max_waste = 1.25,
                      .waste_hint = "give threadIdx.x the column (thread i copies columns i, "
                                    "i + blockDim.x, ...), so that a warp reads 128 contiguous "
                                    "bytes of one row"});
}

}  // namespace
