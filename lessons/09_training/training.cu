// Lesson 09_training — exercise. Generated from cuda/training.cu by lessons/make_exercises.py.
// Write the code each `// TODO` asks for and delete the `throw NotImplemented(...)`
// lines; the contract is in cuda/training.hpp.
// Run this lesson's tests: ctest --preset grade -L L09
// Lesson 9 — the pieces of one skip-gram step as kernels. The update itself is lesson 8's
// deterministic scatter (wte_backward) and sparse SGD step.
//
//   pair_scores      grid ceil(P (1 + k) / 128), block 128: thread i = p (1 + k) + j
//                    s[i] = wte[centres[p]] . wout[targets[i]]
//   score_gradients  the same layout: g[i] = sigmoid(s[i]) - (j == 0), loss term in double
//   row_gradients    grid P, block <= 256 striding over c:
//                    dcentre[p][c] = sum_j g[p][j] wout[targets[p][j]][c]
//                    dtarget[p (1 + k) + j][c] = g[p][j] wte[centres[p]][c]
//   zero_rows        grid = number of ids, block <= 256 striding over c
#include "cuda/training.hpp"

#include <algorithm>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// TODO: helpers (kThreads, row_threads, blocks_for), about 5 lines in the solution.

__global__ void pair_scores_kernel(const float* wte, const float* wout, const std::int32_t* centres,
                                   const std::int32_t* targets, float* scores, std::int64_t count,
                                   std::int64_t k1, std::int64_t d) {
  const std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= count) return;  // the last block's spare threads
  const float* u = wte + std::int64_t{centres[i / k1]} * d;
  const float* v = wout + std::int64_t{targets[i]} * d;
  float sum = 0.0f;
  for (std::int64_t c = 0; c < d; ++c) sum += u[c] * v[c];
  scores[i] = sum;
}

__global__ void score_gradients_kernel(const float* scores, float* grads, double* loss_terms,
                                       std::int64_t count, std::int64_t k1) {
  const std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float s = scores[i];
  const bool context = i % k1 == 0;  // column 0: the context word, label 1
  grads[i] = 1.0f / (1.0f + expf(-s)) - (context ? 1.0f : 0.0f);
  const double x = context ? -double{s} : double{s};  // the term is softplus(x)
  loss_terms[i] = x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

__global__ void row_gradients_kernel(const float* wte, const float* wout, const std::int32_t* centres,
                                     const std::int32_t* targets, const float* grads, float* dcentre,
                                     float* dtarget, std::int64_t k1, std::int64_t d) {
  const std::int64_t p = blockIdx.x;
  const float* u = wte + std::int64_t{centres[p]} * d;
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) {
    float du = 0.0f;
    for (std::int64_t j = 0; j < k1; ++j) {
      const float g = grads[p * k1 + j];
      du += g * wout[std::int64_t{targets[p * k1 + j]} * d + c];
      dtarget[(p * k1 + j) * d + c] = g * u[c];
    }
    dcentre[p * d + c] = du;
  }
}

__global__ void zero_rows_kernel(const std::int32_t* ids, float* dw, std::int64_t d) {
  float* row = dw + std::int64_t{ids[blockIdx.x]} * d;
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) row[c] = 0.0f;
}

}  // namespace

void pair_scores(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                 FloatView scores) {
  // TODO(lesson 09_training): delete the next line once the kernel and its launch are written.
  throw NotImplemented("09_training/training.cu", "pair_scores");
  check::pair_rows_args(wte, wout, centres, targets);
  check::shape("scores", scores, targets.rows(), targets.cols());
  const DeviceBuffer<float> d_wte(wte.flat()), d_wout(wout.flat());
  const DeviceBuffer<std::int32_t> d_centres(centres), d_targets(targets.flat());
  DeviceBuffer<float> d_scores(scores.size());
  // TODO: launch the kernel here, about 3 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_scores.copy_to(scores.flat());
}

double score_gradients(ConstFloatView scores, FloatView grads) {
  // TODO(lesson 09_training): delete the next line once the kernel and its launch are written.
  throw NotImplemented("09_training/training.cu", "score_gradients");
  check::score_gradients_args(scores, grads);
  const DeviceBuffer<float> d_scores(scores.flat());
  DeviceBuffer<float> d_grads(grads.size());
  DeviceBuffer<double> d_terms(scores.size());
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_grads.copy_to(grads.flat());
  std::vector<double> terms(static_cast<std::size_t>(scores.size()));
  d_terms.copy_to(terms);
  double loss = 0.0;
  for (const double t : terms) loss += t;  // (p, j) order, as the reference
  return loss;
}

void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres,
                   TokenIdBatch targets, ConstFloatView grads, FloatView dcentre,
                   FloatView dtarget) {
  // TODO(lesson 09_training): delete the next line once the kernel and its launch are written.
  throw NotImplemented("09_training/training.cu", "row_gradients");
  check::pair_rows_args(wte, wout, centres, targets);
  const std::int64_t P = targets.rows(), K1 = targets.cols(), d = wte.cols();
  check::shape("grads", grads, P, K1);
  check::shape("dcentre", dcentre, P, d);
  check::shape("dtarget", dtarget, P * K1, d);
  const DeviceBuffer<float> d_wte(wte.flat()), d_wout(wout.flat()), d_grads(grads.flat());
  const DeviceBuffer<std::int32_t> d_centres(centres), d_targets(targets.flat());
  DeviceBuffer<float> d_dcentre(dcentre.size()), d_dtarget(dtarget.size());
  // TODO: launch the kernel here, about 3 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_dcentre.copy_to(dcentre.flat());
  d_dtarget.copy_to(dtarget.flat());
}

void zero_rows(TokenIds ids, FloatView dw) {
  // TODO(lesson 09_training): delete the next line once the kernel and its launch are written.
  throw NotImplemented("09_training/training.cu", "zero_rows");
  check::zero_rows_args(ids, dw);
  if (ids.empty()) return;
  const DeviceBuffer<std::int32_t> d_ids(ids);
  DeviceBuffer<float> d_dw(dw.flat());
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_dw.copy_to(dw.flat());
}

ANDREA_CUDA_END
