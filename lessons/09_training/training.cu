// Lesson 09_training: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/training.hpp.
// Grade it: python3 lessons/grade.py -L L09
// Lesson 9 — the pieces of one skip-gram step as kernels. The update itself is lesson 8's
// deterministic scatter (wte_backward) and sparse SGD step.
//
//   pair_scores      grid ceil(P (1 + k) / 128), block 128: thread i = p (1 + k) + j
//                    s[i] = wte[centres[p]] . wout[targets[i]]
//   score_gradients  the same layout: g[i] = sigmoid(s[i]) - (j == 0), loss term in double
//   row_gradients    grid P, block <= 256 striding over c:
//                    dcentre[p][c] = sum_j g[p][j] wout[targets[p][j]][c]
//                    dtarget[p (1 + k) + j][c] = g[p][j] wte[centres[p]][c]
//   sgd_rows         grid U (the distinct rows), block <= 256 striding over c:
//                    w[rows[u]][c] -= lr dw[u][c], dw compact (U, d): each row moves once
//
// The three public pieces copy their inputs to the device and back, to be checked one at a
// time; they and DeviceTables (cuda/device_tables.cu, which keeps wte and wout in device
// memory for a whole run) launch the kernels through the launch_* functions below.
#include "cuda/training.hpp"

#include <vector>

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

// TODO: helpers (kThreads, blocks_for), about 2 lines in the solution.

__global__ void pair_scores_kernel(const float* wte, const float* wout, const std::int32_t* centres,
                                   const std::int32_t* targets, float* scores, std::int64_t count,
                                   std::int64_t k1, std::int64_t d) {
  // TODO: about 7 lines (the body of pair_scores_kernel).
}

__global__ void score_gradients_kernel(const float* scores, float* grads, double* loss_terms,
                                       std::int64_t count, std::int64_t k1) {
  // TODO: about 7 lines (the body of score_gradients_kernel).
}

__global__ void row_gradients_kernel(const float* wte, const float* wout,
                                     const std::int32_t* centres, const std::int32_t* targets,
                                     const float* grads, float* dcentre, float* dtarget,
                                     std::int64_t k1, std::int64_t d) {
  // TODO: about 11 lines (the body of row_gradients_kernel).
}

__global__ void sgd_rows_kernel(const std::int32_t* rows, const float* dw, float* w, float lr,
                                std::int64_t d) {
  // TODO: about 3 lines (the body of sgd_rows_kernel).
}

// The batch's loss: the first count terms added in (p, j) order, as the reference adds them.
double sum_terms(const DeviceBuffer<double>& d_terms, std::int64_t count) {
  std::vector<double> terms(static_cast<std::size_t>(count));
  d_terms.copy_to(terms);
  double loss = 0.0;
  for (const double t : terms) loss += t;
  return loss;
}

}  // namespace

// One launch site per kernel: the public pieces below and DeviceTables both call these.
// All pointers are device memory.
void launch_pair_scores(const float* wte, const float* wout, const std::int32_t* centres,
                        const std::int32_t* targets, float* scores, std::int64_t count,
                        std::int64_t k1, std::int64_t d) {
  // TODO(lesson 09_training): write the kernel and its launch; then delete the next line.
  throw NotImplemented("09_training/training.cu", "launch_pair_scores");
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
}

void launch_score_gradients(const float* scores, float* grads, double* terms, std::int64_t count,
                            std::int64_t k1) {
  // TODO(lesson 09_training): write the kernel and its launch; then delete the next line.
  throw NotImplemented("09_training/training.cu", "launch_score_gradients");
  // TODO: launch the kernel here, about 1 line.
  ANDREA_CUDA_CHECK_LAUNCH();
}

void launch_row_gradients(const float* wte, const float* wout, const std::int32_t* centres,
                          const std::int32_t* targets, const float* grads, float* dcentre,
                          float* dtarget, std::int64_t pairs, std::int64_t k1, std::int64_t d) {
  // TODO(lesson 09_training): write the kernel and its launch; then delete the next line.
  throw NotImplemented("09_training/training.cu", "launch_row_gradients");
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
}

void launch_sgd_rows(const std::int32_t* rows, std::int64_t count, const float* dw, float* w,
                     float lr, std::int64_t d) {
  // TODO(lesson 09_training): write the kernel and its launch; then delete the next line.
  throw NotImplemented("09_training/training.cu", "launch_sgd_rows");
  // TODO: launch the kernel here, about 1 line.
  ANDREA_CUDA_CHECK_LAUNCH();
}

void pair_scores(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                 FloatView scores) {
  // TODO(lesson 09_training): write the kernel and its launch; then delete the next line.
  throw NotImplemented("09_training/training.cu", "pair_scores");
  check::pair_rows_args(wte, wout, centres, targets);
  check::shape("scores", scores, targets.rows(), targets.cols());
  const DeviceBuffer<float> d_wte(wte.flat()), d_wout(wout.flat());
  const DeviceBuffer<std::int32_t> d_centres(centres), d_targets(targets.flat());
  DeviceBuffer<float> d_scores(scores.size());
  launch_pair_scores(d_wte.get(), d_wout.get(), d_centres.get(), d_targets.get(), d_scores.get(),
                     scores.size(), targets.cols(), wte.cols());
  d_scores.copy_to(scores.flat());
}

double score_gradients(ConstFloatView scores, FloatView grads) {
  // TODO(lesson 09_training): write the kernel and its launch; then delete the next line.
  throw NotImplemented("09_training/training.cu", "score_gradients");
  check::score_gradients_args(scores, grads);
  const DeviceBuffer<float> d_scores(scores.flat());
  DeviceBuffer<float> d_grads(grads.size());
  DeviceBuffer<double> d_terms(scores.size());
  launch_score_gradients(d_scores.get(), d_grads.get(), d_terms.get(), scores.size(),
                         scores.cols());
  d_grads.copy_to(grads.flat());
  return sum_terms(d_terms, scores.size());
}

void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                   ConstFloatView grads, FloatView dcentre, FloatView dtarget) {
  // TODO(lesson 09_training): write the kernel and its launch; then delete the next line.
  throw NotImplemented("09_training/training.cu", "row_gradients");
  check::row_gradients_args(wte, wout, centres, targets, grads, dcentre, dtarget);
  const std::int64_t P = targets.rows(), K1 = targets.cols(), d = wte.cols();
  const DeviceBuffer<float> d_wte(wte.flat()), d_wout(wout.flat()), d_grads(grads.flat());
  const DeviceBuffer<std::int32_t> d_centres(centres), d_targets(targets.flat());
  DeviceBuffer<float> d_dcentre(dcentre.size()), d_dtarget(dtarget.size());
  launch_row_gradients(d_wte.get(), d_wout.get(), d_centres.get(), d_targets.get(), d_grads.get(),
                       d_dcentre.get(), d_dtarget.get(), P, K1, d);
  d_dcentre.copy_to(dcentre.flat());
  d_dtarget.copy_to(dtarget.flat());
}

ANDREA_CUDA_END
