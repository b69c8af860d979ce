// Lesson 6 — parameter count, hidden tests: materialize() under a seed and at shapes drawn
// from the instructor's seed, against the course's solution: the same report, and every
// element within one float32 ulp (a GPU's double log and cos may differ in the last bit, as
// in tests/params_test.cpp).
#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/params.hpp"
#else
#include "reference/params.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

constexpr Tolerance kOneUlp{0.0, 1.2e-7};

void expect_materialize(const Config& config, std::uint64_t init_seed) {
  const std::string what = "materialize(" + std::to_string(config.vocab_size) + ", " +
                           std::to_string(config.d_model) + ", " +
                           std::to_string(config.context_length) + "), init seed " +
                           std::to_string(init_seed) + ": ";
  Matrix wte = poisoned(config.vocab_size, config.d_model),
         wpe = poisoned(config.context_length, config.d_model);
  Matrix expected_wte(config.vocab_size, config.d_model),
      expected_wpe(config.context_length, config.d_model);
  const ParameterReport got = backend::materialize(config, init_seed, wte, wpe);
  const ParameterReport expected =
      solution::materialize(config, init_seed, expected_wte, expected_wpe);
  EXPECT_TRUE(matches(what + "wte", wte, expected_wte, kOneUlp));
  EXPECT_TRUE(matches(what + "wpe", wpe, expected_wpe, kOneUlp));
  EXPECT_EQ(got.token_params, expected.token_params) << what << "token_params; " << seed_note();
  EXPECT_EQ(got.position_params, expected.position_params)
      << what << "position_params; " << seed_note();
  EXPECT_EQ(got.total, expected.total) << what << "total; " << seed_note();
  EXPECT_EQ(got.bytes, expected.bytes) << what << "bytes; " << seed_note();
}

TEST(HiddenParams, Andrea120mUnderADrawnSeed) {
  Draw draw("params/andrea-120m");
  expect_materialize(andrea_120m, draw.generator()());
}

TEST(HiddenParams, AwkwardShapes) {
  Draw draw("params/awkward");
  const Config configs[] = {{"odd width", draw.between(2, 3000), draw.odd(1, 799),
                             draw.not_multiple_of_32(1, 300), false},
                            {"width 4 mod 8", draw.between(2, 300), 4 * draw.odd(1, 199),
                             draw.not_multiple_of_32(33, 1100), false},
                            {"smallest", 1, 1, 1, false}};
  for (const Config& config : configs) expect_materialize(config, draw.generator()());
}

TEST(HiddenParams, ShapeDisagreeingWithTheConfigIsRefused) {
  Draw draw("params/bad");
  const Config config{"bad", draw.between(2, 300), draw.odd(1, 99), draw.between(2, 100), false};
  const Matrix before = draw.table(config.vocab_size, config.d_model);
  Matrix wte = before, wpe(config.context_length - 1, config.d_model), scratch = before;
  EXPECT_TRUE(same_error(
      "materialize with a short wpe", [&] { backend::materialize(config, 1, wte, wpe); },
      [&] { solution::materialize(config, 1, scratch, wpe); }));
  EXPECT_TRUE(same_bits("wte after a refused call", wte, before));
}

}  // namespace
