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

// BEGIN SOLUTION
constexpr unsigned kThreads = 128;

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }
// END SOLUTION

__global__ void pair_scores_kernel(const float* wte, const float* wout, const std::int32_t* centres,
                                   const std::int32_t* targets, float* scores, std::int64_t count,
                                   std::int64_t k1, std::int64_t d) {
  // BEGIN SOLUTION
  const std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= count) return;  // the last block's spare threads
  const float* u = wte + std::int64_t{centres[i / k1]} * d;
  const float* v = wout + std::int64_t{targets[i]} * d;
  float sum = 0.0f;
  for (std::int64_t c = 0; c < d; ++c) sum += u[c] * v[c];
  scores[i] = sum;
  // END SOLUTION
}

__global__ void score_gradients_kernel(const float* scores, float* grads, double* loss_terms,
                                       std::int64_t count, std::int64_t k1) {
  // BEGIN SOLUTION
  const std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float s = scores[i];
  const bool context = i % k1 == 0;  // column 0: the context word, label 1
  grads[i] = 1.0f / (1.0f + expf(-s)) - (context ? 1.0f : 0.0f);
  const double x = context ? -double{s} : double{s};  // the term is softplus(x)
  loss_terms[i] = x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x));
  // END SOLUTION
}

__global__ void row_gradients_kernel(const float* wte, const float* wout,
                                     const std::int32_t* centres, const std::int32_t* targets,
                                     const float* grads, float* dcentre, float* dtarget,
                                     std::int64_t k1, std::int64_t d) {
  // BEGIN SOLUTION
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
  // END SOLUTION
}

__global__ void sgd_rows_kernel(const std::int32_t* rows, const float* dw, float* w, float lr,
                                std::int64_t d) {
  // BEGIN SOLUTION
  float* row = w + std::int64_t{rows[blockIdx.x]} * d;
  const float* g = dw + std::int64_t{blockIdx.x} * d;  // compact: row u of the batch's gradient
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) row[c] -= lr * g[c];
  // END SOLUTION
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
  // BEGIN SOLUTION (launch)
  pair_scores_kernel<<<blocks_for(count), kThreads>>>(wte, wout, centres, targets, scores, count,
                                                      k1, d);
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
}

void launch_score_gradients(const float* scores, float* grads, double* terms, std::int64_t count,
                            std::int64_t k1) {
  // BEGIN SOLUTION (launch)
  score_gradients_kernel<<<blocks_for(count), kThreads>>>(scores, grads, terms, count, k1);
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
}

void launch_row_gradients(const float* wte, const float* wout, const std::int32_t* centres,
                          const std::int32_t* targets, const float* grads, float* dcentre,
                          float* dtarget, std::int64_t pairs, std::int64_t k1, std::int64_t d) {
  // BEGIN SOLUTION (launch)
  row_gradients_kernel<<<static_cast<unsigned>(pairs), threads_per_row(d)>>>(
      wte, wout, centres, targets, grads, dcentre, dtarget, k1, d);
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
}

void launch_sgd_rows(const std::int32_t* rows, std::int64_t count, const float* dw, float* w,
                     float lr, std::int64_t d) {
  // BEGIN SOLUTION (launch)
  sgd_rows_kernel<<<static_cast<unsigned>(count), threads_per_row(d)>>>(rows, dw, w, lr, d);
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
}

void pair_scores(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                 FloatView scores) {
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
