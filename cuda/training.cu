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
//   sgd_rows         grid U (the distinct rows), block <= 256 striding over c:
//                    w[rows[u]][c] -= lr dw[u][c], dw compact (U, d): each row moves once
//
// The four public pieces copy their inputs to the device and back, to be checked one at a
// time. DeviceTables keeps wte and wout in device memory for a whole run: a step uploads
// the batch's ids and their grouping, launches the same kernels, and reads back only the
// scores and the loss.
#include "cuda/training.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cuda/backward.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"
#include "core/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// BEGIN SOLUTION
constexpr unsigned kThreads = 128;

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }
// END SOLUTION

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

__global__ void sgd_rows_kernel(const std::int32_t* rows, const float* dw, float* w, float lr,
                                std::int64_t d) {
  // BEGIN SOLUTION
  float* row = w + std::int64_t{rows[blockIdx.x]} * d;
  const float* g = dw + std::int64_t{blockIdx.x} * d;  // compact: row u of the batch's gradient
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) row[c] -= lr * g[c];
  // END SOLUTION
}

// One launch site per kernel: the public pieces below and DeviceTables both call these.
// All pointers are device memory.
void launch_pair_scores(const float* wte, const float* wout, const std::int32_t* centres,
                        const std::int32_t* targets, float* scores, std::int64_t count,
                        std::int64_t k1, std::int64_t d) {
  // BEGIN SOLUTION (launch)
  pair_scores_kernel<<<blocks_for(count), kThreads>>>(wte, wout, centres, targets, scores, count, k1, d);
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

void launch_zero_rows(const std::int32_t* ids, std::int64_t count, float* dw, std::int64_t d) {
  // BEGIN SOLUTION (launch)
  zero_rows_kernel<<<static_cast<unsigned>(count), threads_per_row(d)>>>(ids, dw, d);
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

// The batch's loss: the first count terms added in (p, j) order, as the reference adds them.
double sum_terms(const DeviceBuffer<double>& d_terms, std::int64_t count) {
  std::vector<double> terms(static_cast<std::size_t>(count));
  d_terms.copy_to(terms);
  double loss = 0.0;
  for (const double t : terms) loss += t;
  return loss;
}

}  // namespace

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
  launch_score_gradients(d_scores.get(), d_grads.get(), d_terms.get(), scores.size(), scores.cols());
  d_grads.copy_to(grads.flat());
  return sum_terms(d_terms, scores.size());
}

void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres,
                   TokenIdBatch targets, ConstFloatView grads, FloatView dcentre,
                   FloatView dtarget) {
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

void zero_rows(TokenIds ids, FloatView dw) {
  check::zero_rows_args(ids, dw);
  if (ids.empty()) return;
  const DeviceBuffer<std::int32_t> d_ids(ids);
  DeviceBuffer<float> d_dw(dw.flat());
  launch_zero_rows(d_ids.get(), static_cast<std::int64_t>(ids.size()), d_dw.get(), dw.cols());
  d_dw.copy_to(dw.flat());
}

// --- The resident trainer ----------------------------------------------------------

struct DeviceTables::Buffers {
  std::int64_t V, d, max_pairs, k1;
  DeviceBuffer<float> wte, wout;                        // (V, d): the tables
  DeviceBuffer<float> scores, grads, dcentre, dtarget;  // one batch, as in TrainingScratch
  DeviceBuffer<double> terms;
  DeviceBuffer<std::int32_t> centres, targets;
  // Lesson 8's scatter in the batch's own row space: at most P (1 + k) distinct rows.
  DeviceBuffer<float> dw;  // (U, d), U distinct ids
  DeviceBuffer<std::int32_t> rows, group_rows, offsets, positions;
  Buffers(ConstFloatView w, ConstFloatView o, std::int64_t pairs, std::int64_t targets_per_pair)
      : V(w.rows()), d(w.cols()), max_pairs(pairs), k1(targets_per_pair),
        wte(w.flat()), wout(o.flat()),
        scores(pairs * k1), grads(pairs * k1), dcentre(pairs * d), dtarget(pairs * k1 * d),
        terms(pairs * k1), centres(pairs), targets(pairs * k1),
        dw(pairs * k1 * d), rows(pairs * k1), group_rows(pairs * k1), offsets(pairs * k1 + 1),
        positions(pairs * k1) {}

  // Lesson 8's deterministic scatter and sgd_step_rows for one table, without any O(V) work:
  // the U distinct ids of `ids` (ascending) become rows 0..U-1 of the compact gradient dw;
  // group_positions groups the uses by those local rows, the kernel adds each row's uses in
  // ascending position (the reference's order: the same bits), and sgd_rows moves
  // w[distinct[u]] by -lr dw[u], once per row.
  void scatter_and_step(TokenIds ids, const float* grad_rows, DeviceBuffer<float>& w, float lr) {
    std::vector<std::int32_t> distinct(ids.begin(), ids.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<std::int32_t> local(ids.size());
    for (std::size_t p = 0; p < ids.size(); ++p) {
      local[p] = static_cast<std::int32_t>(
          std::lower_bound(distinct.begin(), distinct.end(), ids[p]) - distinct.begin());
    }
    const auto U = static_cast<std::int64_t>(distinct.size());
    const PositionGroups g = group_positions(local, U);
    rows.copy_from(distinct);
    group_rows.copy_from(g.rows);
    offsets.copy_from(g.offsets);
    positions.copy_from(g.positions);
    ANDREA_CUDA_CHECK(cudaMemset(dw.get(), 0, static_cast<std::size_t>(U * d) * sizeof(float)));
    launch_wte_backward(grad_rows, group_rows.get(), offsets.get(), positions.get(), dw.get(), U, d);
    launch_sgd_rows(rows.get(), U, dw.get(), w.get(), lr, d);
  }
};

DeviceTables::DeviceTables(ConstFloatView wte, ConstFloatView wout, std::int64_t max_pairs,
                           std::int64_t targets_per_pair) {
  check::non_empty("wte", wte);
  check::shape("wout", wout, wte.rows(), wte.cols());
  if (max_pairs < 1 || targets_per_pair < 1) {
    throw InputError("a step needs room for at least one pair of at least one target, got " +
                     std::to_string(max_pairs) + " pairs of " + std::to_string(targets_per_pair));
  }
  buffers_ = std::make_unique<Buffers>(wte, wout, max_pairs, targets_per_pair);
}

DeviceTables::~DeviceTables() = default;

double DeviceTables::sgns_step(TokenIds centres, TokenIdBatch targets, float lr) {
  Buffers& b = *buffers_;
  const ConstFloatView table(nullptr, b.V, b.d);  // the shape only: the data is on the device
  check::pair_rows_args(table, table, centres, targets);
  const std::int64_t P = targets.rows(), K1 = targets.cols(), count = P * K1;
  if (P > b.max_pairs || K1 != b.k1) check::shape("targets", P, K1, b.max_pairs, b.k1);
  check::sgd_step_rows_args(centres, table, lr, table);
  b.centres.copy_from(centres);
  b.targets.copy_from(targets.flat());

  launch_pair_scores(b.wte.get(), b.wout.get(), b.centres.get(), b.targets.get(), b.scores.get(),
                     count, K1, b.d);
  std::vector<float> scores(static_cast<std::size_t>(count));
  b.scores.copy_to(scores);  // a non-finite score stops the step before any table moves
  check::score_gradients_args(ConstFloatView(scores.data(), P, K1), ConstFloatView(scores.data(), P, K1));
  launch_score_gradients(b.scores.get(), b.grads.get(), b.terms.get(), count, K1);
  launch_row_gradients(b.wte.get(), b.wout.get(), b.centres.get(), b.targets.get(), b.grads.get(),
                       b.dcentre.get(), b.dtarget.get(), P, K1, b.d);
  // Lesson 8 on the device: sum the per-use gradients into their rows, step each row once.
  b.scatter_and_step(centres, b.dcentre.get(), b.wte, lr);
  b.scatter_and_step(targets.flat(), b.dtarget.get(), b.wout, lr);

  return sum_terms(b.terms, count);
}

void DeviceTables::copy_to(FloatView wte, FloatView wout) const {
  check::shape("wte", wte, buffers_->V, buffers_->d);
  check::shape("wout", wout, buffers_->V, buffers_->d);
  buffers_->wte.copy_to(wte.flat());
  buffers_->wout.copy_to(wout.flat());
}

ANDREA_CUDA_END
