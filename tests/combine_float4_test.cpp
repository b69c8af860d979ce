// Lesson 5, going further — the float4 combine (cuda/combine_float4.cu), the rung above the
// graded kernel (cuda/combine.cu). Checked against golden/combine.json (wte(idx) + wpe(pos) in
// PyTorch) and, bit for bit, against the plain kernel on widths that take the float4 path
// (4, 768) and widths that cannot (1, 3, 5, 769). Not graded; built on the CUDA backends
// outside grade mode.
#include <cmath>
#include <string>

#include "cuda/combine.hpp"
#include "cuda/combine_float4.hpp"
#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

void expect_golden_case(const char* name) {
  const json& c = golden_case("combine", name);
  const Config config = config_of(c);
  const Matrix &wte = token_table(config), wpe = position_table(config);
  const Matrix expected = to_matrix(c.at("out"));
  std::vector<std::int32_t> flat;
  std::int64_t batch = 1, n = 0;
  if (c.at("ids").at(0).is_array()) {
    for (const json& seq : c.at("ids")) {
      for (const std::int32_t id : to_ids(seq)) flat.push_back(id);
    }
    batch = static_cast<std::int64_t>(c.at("ids").size());
    n = static_cast<std::int64_t>(c.at("ids").at(0).size());
  } else {
    flat = to_ids(c.at("ids"));
    n = static_cast<std::int64_t>(flat.size());
  }
  Matrix out = poisoned(expected.rows(), config.d_model);
  cuda::combine_batch_float4(wte, wpe, TokenIdBatch(flat.data(), batch, n), out);
  EXPECT_TRUE(all_close("x", out, expected, tolerance_of(c)));
}

TEST(CombineFloat4, GoldenTinyFloat4Path) { expect_golden_case("tiny"); }             // d = 4
TEST(CombineFloat4, GoldenTinyBatchFloat4Path) { expect_golden_case("tiny-batch"); }  // d = 4
TEST(CombineFloat4, GoldenOddWidthFloatPath) { expect_golden_case("odd-width"); }     // d = 5

// d_model = 768, B = 2, n = 1,024: the golden row norms and sum of the batch.
TEST(CombineFloat4, GoldenAndrea120mBatch) {
  const json& c = golden_case("combine", "andrea-120m-batch");
  const Matrix &wte = token_table(andrea_120m), wpe = position_table(andrea_120m);
  const std::vector<std::int32_t> ids = example_ids(1024, andrea_120m.vocab_size);
  std::vector<std::int32_t> batch(2 * 1024);
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t t = 0; t < 1024; ++t) batch[b * 1024 + t] = ids[(t + b) % 1024];
  }
  Matrix x = poisoned(2 * 1024, andrea_120m.d_model);
  cuda::combine_batch_float4(wte, wpe, TokenIdBatch(batch.data(), 2, 1024), x);
  std::vector<float> norms;
  double sum = 0.0;
  for (std::int64_t r = 0; r < x.rows(); ++r) {
    double squares = 0.0;
    for (const float v : x.row(r)) squares += double{v} * v, sum += v;
    norms.push_back(static_cast<float>(std::sqrt(squares)));
  }
  EXPECT_TRUE(all_close("row norms", norms, to_floats(c.at("row_norms")),
                        tolerance_of(c, "norm_tolerance")));
  EXPECT_TRUE(close("sum of x", sum, c.at("sum").get<double>(), tolerance_of(c, "sum_tolerance")));
}

// Both rungs on the same batch: tables inside poisoned frames, random ids ending with V - 1,
// poisoned outputs. Each element is one float32 addition, so both must equal
// wte[id][c] + wpe[t][c] exactly, and each other bit for bit.
class CombineFloat4Width : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(CombineFloat4Width, AgreesWithThePlainKernelAndTheSums) {
  const std::int64_t d = GetParam(), batch = 3, n = 13;
  const Framed wte(init_table(Table::token, kAwkwardVocab, d, 41));
  const Framed wpe(init_table(Table::position, n, d, 42));  // T = n: the last position too
  const std::vector<std::int32_t> ids = random_ids(batch * n, kAwkwardVocab);
  const TokenIdBatch ids_b(ids.data(), batch, n);
  Framed vector(batch * n, d);
  vector.fill(kPoison);
  Matrix plain = poisoned(batch * n, d), expected(batch * n, d);
  cuda::combine_batch_float4(wte, wpe, ids_b, vector);
  cuda::combine_batch(wte, wpe, ids_b, plain);
  for (std::int64_t r = 0; r < batch * n; ++r) {
    for (std::int64_t c = 0; c < d; ++c)
      expected(r, c) = wte.view()(ids[static_cast<std::size_t>(r)], c) + wpe.view()(r % n, c);
  }
  EXPECT_TRUE(all_close("float4 x", vector.view(), expected, {}));
  EXPECT_TRUE(all_close("float4 x vs plain x", vector.view(), plain, {}));
  EXPECT_TRUE(vector.untouched("float4 x"));
}

INSTANTIATE_TEST_SUITE_P(Widths, CombineFloat4Width, ::testing::Values(1, 3, 4, 5, 768, 769));

// The same all-or-nothing contract as the plain kernel: a bad id is refused on the host.
TEST(CombineFloat4, BadIdWritesNothing) {
  const Matrix &wte = init_table(Table::token, 5, 4), wpe = init_table(Table::position, 3, 4);
  const std::int32_t ids[] = {0, 1, 2, 3, -4, 0};
  Matrix out(6, 4);
  std::fill_n(out.view().data(), out.view().size(), -7.0f);
  EXPECT_INPUT_ERROR(cuda::combine_batch_float4(wte, wpe, TokenIdBatch(ids, 2, 3), out),
                     "token id -4 at position 4 is outside [0, 5)");
  for (const float x : out.view().flat()) ASSERT_EQ(x, -7.0f) << "out was written";
}

}  // namespace
