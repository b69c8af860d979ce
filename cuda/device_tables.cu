// DeviceTables: lesson 9's step with the tables resident in device memory (see
// cuda/device_tables.hpp). Each step:
//   upload the batch's ids                        centres (P), targets (P, 1 + k)
//   launch_pair_scores, read the scores back      a non-finite one stops the step here
//   launch_score_gradients, launch_row_gradients  grads, dcentre, dtarget on the device
//   per table: lesson 8's scatter into a compact (U, d) gradient of the U distinct rows,
//              then launch_sgd_rows moves each of those rows once
//   read the loss terms back, add them in (p, j) order as the reference does
#include "cuda/device_tables.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "cuda/backward.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "cuda/training.hpp"

ANDREA_CUDA_BEGIN

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
      : V(w.rows()),
        d(w.cols()),
        max_pairs(pairs),
        k1(targets_per_pair),
        wte(w.flat()),
        wout(o.flat()),
        scores(pairs * k1),
        grads(pairs * k1),
        dcentre(pairs * d),
        dtarget(pairs * k1 * d),
        terms(pairs * k1),
        centres(pairs),
        targets(pairs * k1),
        dw(pairs * k1 * d),
        rows(pairs * k1),
        group_rows(pairs * k1),
        offsets(pairs * k1 + 1),
        positions(pairs * k1) {}

  // What a step requires before anything moves, in reference::sgns_step's order and with
  // its messages: P >= 1 pairs of k1 targets with P <= max_pairs, every id in [0, V), lr
  // finite and > 0.
  void check_batch(TokenIds batch_centres, TokenIdBatch batch_targets, float lr) const {
    check::pairs(batch_centres, batch_targets, V);
    const std::int64_t P = batch_targets.rows(), K1 = batch_targets.cols();
    if (P > max_pairs || K1 != k1) check::shape("targets", P, K1, max_pairs, k1);
    check::learning_rate(lr);
  }

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
    launch_wte_backward(grad_rows, group_rows.get(), offsets.get(), positions.get(), dw.get(), U,
                        d);
    launch_sgd_rows(rows.get(), U, dw.get(), w.get(), lr, d);
  }

  // The batch's loss: the first count terms added in (p, j) order, as the reference adds them.
  double loss(std::int64_t count) const {
    std::vector<double> host(static_cast<std::size_t>(count));
    terms.copy_to(host);
    double sum = 0.0;
    for (const double t : host) sum += t;
    return sum;
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
  b.check_batch(centres, targets, lr);
  const std::int64_t P = targets.rows(), K1 = targets.cols(), count = P * K1;
  b.centres.copy_from(centres);
  b.targets.copy_from(targets.flat());

  launch_pair_scores(b.wte.get(), b.wout.get(), b.centres.get(), b.targets.get(), b.scores.get(),
                     count, K1, b.d);
  std::vector<float> scores(static_cast<std::size_t>(count));
  b.scores.copy_to(scores);
  check::finite("scores", scores);  // a non-finite score stops the step before any table moves
  launch_score_gradients(b.scores.get(), b.grads.get(), b.terms.get(), count, K1);
  launch_row_gradients(b.wte.get(), b.wout.get(), b.centres.get(), b.targets.get(), b.grads.get(),
                       b.dcentre.get(), b.dtarget.get(), P, K1, b.d);
  // Lesson 8 on the device: sum the per-use gradients into their rows, step each row once.
  b.scatter_and_step(centres, b.dcentre.get(), b.wte, lr);
  b.scatter_and_step(targets.flat(), b.dtarget.get(), b.wout, lr);
  return b.loss(count);
}

void DeviceTables::copy_to(FloatView wte, FloatView wout) const {
  check::shape("wte", wte, buffers_->V, buffers_->d);
  check::shape("wout", wout, buffers_->V, buffers_->d);
  buffers_->wte.copy_to(wte.flat());
  buffers_->wout.copy_to(wout.flat());
}

ANDREA_CUDA_END
