#include "reference/training.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "reference/backward.hpp"

namespace andrea::reference {

// BEGIN SOLUTION
namespace {

// out[j] = u . v[j] for the k <= 8 rows v[0..k), each a float32 sum with c ascending (the
// order one CUDA thread uses for the same dot). One dot alone waits for its previous addition
// at every c; k sums side by side give the CPU k additions to overlap. The same bits as k
// dots one after the other, where no multiply and add are fused into one FMA (the course
// builds for baseline x86-64, which has no FMA instruction; -march=native would fuse some).
void dot_rows(const float* u, const float* const* v, std::int64_t k, std::int64_t d, float* out) {
  float sum[8] = {};
  for (std::int64_t c = 0; c < d; ++c) {
    for (std::int64_t j = 0; j < k; ++j) sum[j] += u[c] * v[j][c];
  }
  for (std::int64_t j = 0; j < k; ++j) out[j] = sum[j];
}

// Asks the cache for the wout rows of pair p before they are read (GCC's __builtin_prefetch:
// a hint, no effect on results). The targets are random rows of a table larger than L2,
// which the hardware prefetcher cannot guess; asked for one pair ahead, they arrive while
// the pair before is scored (lesson 9's trainer runs 10% faster for it).
void prefetch_targets(ConstFloatView wout, TokenIdBatch targets, std::int64_t p) {
  constexpr std::int64_t kLine = 64 / sizeof(float);  // floats per cache line
  for (std::int64_t j = 0; j < targets.cols(); ++j) {
    const float* v = wout.row(targets(p, j)).data();
    for (std::int64_t c = 0; c < wout.cols(); c += kLine) __builtin_prefetch(v + c);
  }
}

// log(1 + e^x) without overflow: for x > 0, x + log(1 + e^-x).
double softplus(double x) {
  return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

}  // namespace
// END SOLUTION

void pair_scores(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                 FloatView scores) {
  // BEGIN SOLUTION
  check::pair_rows_args(wte, wout, centres, targets);
  check::shape("scores", scores, targets.rows(), targets.cols());
  const std::int64_t P = targets.rows(), K1 = targets.cols();
  for (std::int64_t p = 0; p < P; ++p) {
    if (p + 1 < P) prefetch_targets(wout, targets, p + 1);
    const float* u = wte.row(centres[static_cast<std::size_t>(p)]).data();
    for (std::int64_t j0 = 0; j0 < K1; j0 += 8) {  // the targets 8 at a time
      const std::int64_t k = std::min<std::int64_t>(8, K1 - j0);
      const float* v[8];
      for (std::int64_t j = 0; j < k; ++j) v[j] = wout.row(targets(p, j0 + j)).data();
      dot_rows(u, v, k, wte.cols(), &scores(p, j0));
    }
  }
  // END SOLUTION
}

double score_gradients(ConstFloatView scores, FloatView grads) {
  // BEGIN SOLUTION
  check::score_gradients_args(scores, grads);
  double loss = 0.0;
  for (std::int64_t p = 0; p < scores.rows(); ++p) {
    for (std::int64_t j = 0; j < scores.cols(); ++j) {
      const float s = scores(p, j);
      const float label = j == 0 ? 1.0f : 0.0f;  // column 0: the context word
      grads(p, j) = 1.0f / (1.0f + std::exp(-s)) - label;
      loss += j == 0 ? softplus(-double{s}) : softplus(double{s});
    }
  }
  return loss;
  // END SOLUTION
}

void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                   ConstFloatView grads, FloatView dcentre, FloatView dtarget) {
  // BEGIN SOLUTION
  check::row_gradients_args(wte, wout, centres, targets, grads, dcentre, dtarget);
  const std::int64_t P = targets.rows(), K1 = targets.cols(), d = wte.cols();
  for (std::int64_t p = 0; p < P; ++p) {
    const float* u = wte.row(centres[static_cast<std::size_t>(p)]).data();
    float* du = dcentre.row(p).data();
    for (std::int64_t c = 0; c < d; ++c) du[c] = 0.0f;
    for (std::int64_t j = 0; j < K1; ++j) {
      const float g = grads(p, j);
      const float* v = wout.row(targets(p, j)).data();
      float* dv = dtarget.row(p * K1 + j).data();
      for (std::int64_t c = 0; c < d; ++c) {
        du[c] += g * v[c];  // d(u . v)/du = v
        dv[c] = g * u[c];   // d(u . v)/dv = u
      }
    }
  }
  // END SOLUTION
}

TrainingScratch::TrainingScratch(std::int64_t vocab_size, std::int64_t d_model,
                                 std::int64_t max_pairs, std::int64_t targets_per_pair)
    : scores(max_pairs, targets_per_pair),
      grads(max_pairs, targets_per_pair),
      dcentre(max_pairs, d_model),
      dtarget(max_pairs * targets_per_pair, d_model),
      dwte(vocab_size, d_model),
      dwout(vocab_size, d_model) {}

double sgns_step(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets, float lr,
                 TrainingScratch& scratch) {
  // BEGIN SOLUTION
  check::pair_rows_args(wte, wout, centres, targets);
  const std::int64_t P = targets.rows(), K1 = targets.cols(), d = wte.cols();
  if (P > scratch.scores.rows() || K1 != scratch.scores.cols()) {
    check::shape("targets", P, K1, scratch.scores.rows(), scratch.scores.cols());
  }
  check::shape("dwte", scratch.dwte.view(), wte.rows(), d);
  check::shape("dwout", scratch.dwout.view(), wte.rows(), d);
  check::sgd_step_rows_args(centres, scratch.dwte, lr, wte);
  const FloatView scores(scratch.scores.view().data(), P, K1);
  const FloatView grads(scratch.grads.view().data(), P, K1);
  const FloatView dcentre(scratch.dcentre.view().data(), P, d);
  const FloatView dtarget(scratch.dtarget.view().data(), P * K1, d);

  pair_scores(wte, wout, centres, targets, scores);
  const double loss = score_gradients(scores, grads);
  row_gradients(wte, wout, centres, targets, grads, dcentre, dtarget);
  // Lesson 8: sum the per-use gradients into their rows, step those rows, clear them.
  wte_backward(TokenIdBatch(centres.data(), P, 1), dcentre, scratch.dwte);
  wte_backward(targets, dtarget, scratch.dwout);
  sgd_step_rows(centres, scratch.dwte, lr, wte);
  sgd_step_rows(targets.flat(), scratch.dwout, lr, wout);
  zero_rows(centres, scratch.dwte);
  zero_rows(targets.flat(), scratch.dwout);
  return loss;
  // END SOLUTION
}

}  // namespace andrea::reference
