// Lesson 9 — skip-gram with negative sampling, hidden tests: tables, centres and targets
// drawn from the instructor's seed at the lesson's training shapes (V = 43,776 words,
// d_model = 64, 1 + k = 6 targets per pair) and awkward ones; each piece of the step and the
// whole step (reference::sgns_step in C++; for CUDA DeviceTables, which runs the student's kernels)
// compared with the course's solution within the public tests' tolerance.
#include <cmath>

#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"

#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/device_tables.hpp"
#include "cuda/training.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

constexpr Tolerance kTolerance{1e-6, 1e-5};  // golden/training.json

struct Batch {
  Matrix wte, wout;
  std::vector<std::int32_t> centres, targets;  // (P), (P, 1 + k)
  std::int64_t pairs, per_pair;
  TokenIdBatch target_batch() const { return {targets.data(), pairs, per_pair}; }
  std::string shape() const {
    return "(V " + std::to_string(wte.rows()) + ", d_model " + std::to_string(wte.cols()) + ", P " +
           std::to_string(pairs) + ", 1 + k = " + std::to_string(per_pair) + ")";
  }
};

Batch draw_batch(Draw& draw, std::int64_t V, std::int64_t d, std::int64_t pairs,
                 std::int64_t per_pair) {
  Batch b{
      draw.table(V, d), draw.table(V, d), draw.ids(pairs, V), draw.ids(pairs * per_pair, V), pairs,
      per_pair};
  return b;
}

// The lesson's shapes: one sentence's pairs (P drawn), and a 1,000-word sentence cut.
std::vector<Batch> batches(Draw& draw) {
  std::vector<Batch> all;
  all.push_back(draw_batch(draw, 43776, 64, draw.between(100, 2000), 6));
  const std::int64_t V = draw.between(2, 3000), d = draw.odd(1, 131),
                     pairs = draw.not_multiple_of_32(1, 700);
  all.push_back(draw_batch(draw, V, d, pairs, draw.between(1, 9)));
  return all;
}

TEST(HiddenTraining, PairScoresScoreGradientsRowGradients) {
  Draw draw("training/pieces");
  for (const Batch& b : batches(draw)) {
    Matrix scores = poisoned(b.pairs, b.per_pair), expected_scores(b.pairs, b.per_pair);
    backend::pair_scores(b.wte, b.wout, b.centres, b.target_batch(), scores);
    solution::pair_scores(b.wte, b.wout, b.centres, b.target_batch(), expected_scores);
    EXPECT_TRUE(matches("pair_scores " + b.shape(), scores, expected_scores, kTolerance));

    // From here on the solution's scores, scaled to reach the saturated ends of the sigmoid.
    for (float& s : expected_scores.view().flat()) s *= static_cast<float>(draw.between(1, 40));
    Matrix grads = poisoned(b.pairs, b.per_pair), expected_grads(b.pairs, b.per_pair);
    const double loss = backend::score_gradients(expected_scores, grads);
    const double expected_loss = solution::score_gradients(expected_scores, expected_grads);
    EXPECT_TRUE(matches("score_gradients " + b.shape(), grads, expected_grads, kTolerance));
    EXPECT_TRUE(close_to("loss of score_gradients " + b.shape(), loss, expected_loss, kTolerance));

    const std::int64_t d = b.wte.cols();
    Matrix dcentre = poisoned(b.pairs, d), dtarget = poisoned(b.pairs * b.per_pair, d);
    Matrix expected_dcentre(b.pairs, d), expected_dtarget(b.pairs * b.per_pair, d);
    backend::row_gradients(b.wte, b.wout, b.centres, b.target_batch(), expected_grads, dcentre,
                           dtarget);
    solution::row_gradients(b.wte, b.wout, b.centres, b.target_batch(), expected_grads,
                            expected_dcentre, expected_dtarget);
    EXPECT_TRUE(
        matches("row_gradients dcentre " + b.shape(), dcentre, expected_dcentre, kTolerance));
    EXPECT_TRUE(
        matches("row_gradients dtarget " + b.shape(), dtarget, expected_dtarget, kTolerance));
  }
}

TEST(HiddenTraining, OneWholeStep) {
  Draw draw("training/step");
  for (const Batch& b : batches(draw)) {
    const float lr = static_cast<float>(draw.between(1, 100)) / 100.0f;
    Matrix wte = b.wte, wout = b.wout, expected_wte = b.wte, expected_wout = b.wout;
#if defined(ANDREA_BACKEND_CUDA) || defined(ANDREA_BACKEND_REMOTE)  // (remote: in the runner)
    backend::DeviceTables tables(wte, wout, b.pairs, b.per_pair);
    const double loss = tables.sgns_step(b.centres, b.target_batch(), lr);
    tables.copy_to(wte, wout);
#else
    reference::TrainingScratch scratch(wte.rows(), wte.cols(), b.pairs, b.per_pair);
    const double loss = backend::sgns_step(wte, wout, b.centres, b.target_batch(), lr, scratch);
#endif
    const double expected_loss =
        solution_sgns_step(expected_wte, expected_wout, b.centres, b.target_batch(), lr);
    const std::string what = " after one step " + b.shape() + ", lr " + std::to_string(lr);
    EXPECT_TRUE(close_to("loss" + what, loss, expected_loss, kTolerance));
    EXPECT_TRUE(matches("wte" + what, wte, expected_wte, kTolerance));
    EXPECT_TRUE(matches("wout" + what, wout, expected_wout, kTolerance));
  }
}

TEST(HiddenTraining, BadTargetIsRefused) {
  Draw draw("training/bad");
  const std::int64_t V = draw.between(2, 300), d = draw.odd(1, 31), pairs = draw.between(1, 50),
                     per_pair = draw.between(2, 6);
  Batch b = draw_batch(draw, V, d, pairs, per_pair);
  b.targets[static_cast<std::size_t>(draw.between(0, pairs * per_pair - 1))] =
      static_cast<std::int32_t>(V + draw.between(0, 3));
  Matrix scores(pairs, per_pair), scratch(pairs, per_pair);
  EXPECT_TRUE(same_error(
      "pair_scores with a target id past V",
      [&] { backend::pair_scores(b.wte, b.wout, b.centres, b.target_batch(), scores); },
      [&] { solution::pair_scores(b.wte, b.wout, b.centres, b.target_batch(), scratch); }));
}

}  // namespace
