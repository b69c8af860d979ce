// Lesson 1, going further — the float4 lookup (cuda/lookup_float4.cu), the rung above the graded
// kernel (cuda/lookup.cu). Checked against golden/lookup.json (torch.nn.Embedding) and, bit for
// bit, against the plain kernel on widths that take the float4 path (4, 768) and widths that
// cannot (1, 3, 5, 769). Not graded; built on the CUDA backends outside grade mode.
#include <string>

#include "cuda/lookup.hpp"
#include "cuda/lookup_float4.hpp"
#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

void expect_golden_case(const char* name) {
  const json& c = golden_case("lookup", name);
  const Config config = config_of(c);
  const Matrix& wte = token_table(config);
  const std::vector<std::int32_t> ids = to_ids(c.at("ids"));
  Matrix out = poisoned(static_cast<std::int64_t>(ids.size()), config.d_model);
  cuda::lookup_float4(wte, ids, out);
  EXPECT_TRUE(all_close("out", out, to_matrix(c.at("out")), tolerance_of(c)));
}

TEST(LookupFloat4, GoldenTinyFloat4Path) { expect_golden_case("tiny"); }        // d_model = 4
TEST(LookupFloat4, GoldenOddWidthFloatPath) { expect_golden_case("odd-width"); }  // d_model = 5

// d_model = 768: 192 float4s per row; the golden rows of the 1,024-id example sequence.
TEST(LookupFloat4, GoldenAndrea120mExampleRows) {
  const json& c = golden_case("lookup", "andrea-120m-example");
  const Matrix& wte = token_table(andrea_120m);
  const std::vector<std::int32_t> ids = example_ids(1024, andrea_120m.vocab_size);
  Matrix out = poisoned(1024, andrea_120m.d_model);
  cuda::lookup_float4(wte, ids, out);
  for (const auto& [row, values] : c.at("rows").items()) {
    EXPECT_TRUE(all_close("out row " + row, out.row(std::stoll(row)), to_floats(values),
                          tolerance_of(c)));
  }
}

// Both rungs on the same input: the table inside a poisoned frame (a read of row -1 or row V
// returns NaN), random ids ending with V - 1, poisoned outputs. Every row must be the table
// row of its id, and the two kernels must agree bit for bit.
class LookupFloat4Width : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(LookupFloat4Width, AgreesWithThePlainKernelAndTheTable) {
  const std::int64_t d = GetParam();
  const Framed wte(init_table(Table::token, kAwkwardVocab, d, 41));
  const std::vector<std::int32_t> ids = random_ids(kAwkwardRows, kAwkwardVocab);
  Framed vector(kAwkwardRows, d);
  vector.fill(kPoison);
  Matrix plain = poisoned(kAwkwardRows, d);
  cuda::lookup_float4(wte, ids, vector);
  cuda::lookup(wte, ids, plain);
  for (std::int64_t t = 0; t < kAwkwardRows; ++t) {
    const std::int32_t id = ids[static_cast<std::size_t>(t)];
    ASSERT_TRUE(all_close("float4 out row " + std::to_string(t) + " (id " + std::to_string(id) + ")",
                          vector.view().row(t), wte.view().row(id), {}));
  }
  EXPECT_TRUE(all_close("float4 out vs plain out", vector.view(), plain, {}));
  EXPECT_TRUE(vector.untouched("float4 out"));
}

INSTANTIATE_TEST_SUITE_P(Widths, LookupFloat4Width, ::testing::Values(1, 3, 4, 5, 768, 769));

// The same all-or-nothing contract as the plain kernel: a bad id is refused on the host.
TEST(LookupFloat4, BadIdWritesNothing) {
  const Matrix& wte = init_table(Table::token, 3, 4);
  const std::vector<std::int32_t> ids = {0, 1, 3};
  Matrix out(3, 4);
  std::fill_n(out.view().data(), out.view().size(), -7.0f);
  EXPECT_INPUT_ERROR(cuda::lookup_float4(wte, ids, out), "token id 3 at position 2 is outside [0, 3)");
  for (const float x : out.view().flat()) ASSERT_EQ(x, -7.0f) << "out was written";
}

}  // namespace
