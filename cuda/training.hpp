// Lesson 9 — the skip-gram training step on the device: one kernel per piece.
#pragma once

#include <memory>

#include "cuda/flavor.hpp"
#include "core/tensor.hpp"

ANDREA_CUDA_BEGIN

/// s[p][j] = wte[centres[p]] . wout[targets[p][j]]. Same contract as reference::pair_scores.
/// Kernel: one thread per score (p, j), summing its d_model products in float, c ascending.
void pair_scores(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                 FloatView scores);

/// g = sigmoid(s) - label; returns the loss. Same contract as reference::score_gradients.
/// Kernel: one thread per score; each writes g and its loss term (double); the host adds
/// the terms in (p, j) order, as the reference does.
double score_gradients(ConstFloatView scores, FloatView grads);

/// dcentre and dtarget. Same contract as reference::row_gradients.
/// Kernel: one block per pair p, threads striding over the d_model columns c; thread c
/// sums g[p][j] wout[targets[p][j]][c] over j ascending and writes g[p][j] wte[centres[p]][c].
void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres,
                   TokenIdBatch targets, ConstFloatView grads, FloatView dcentre,
                   FloatView dtarget);

/// dw[v] = 0 for each v in ids. Same contract as reference::zero_rows.
/// Kernel: one block per id, threads striding over the row (a repeated id writes 0 twice).
void zero_rows(TokenIds ids, FloatView dw);

/// Lesson 9 on the GPU for a whole run: wte and wout stay in device memory. A step uploads
/// the batch's ids and their grouping, launches the kernels above, lesson 8's deterministic
/// scatter (group_positions, launch_wte_backward) into a compact gradient of the batch's
/// distinct rows and a sparse SGD step, and reads back only the P (1 + k) scores (to refuse a
/// non-finite one) and the loss terms. No step does O(V) work. Copying the tables each step,
/// as the pieces above do, would move 2 V d_model floats per sentence.
class DeviceTables {
 public:
  /// Uploads wte and wout (V, d_model) float32 and sizes the buffers of one step for at
  /// most max_pairs pairs of targets_per_pair (1 + k) targets. Throws andrea::InputError
  /// when a table is empty, the shapes differ or a size is < 1; andrea::CudaError.
  DeviceTables(ConstFloatView wte, ConstFloatView wout, std::int64_t max_pairs,
               std::int64_t targets_per_pair);
  ~DeviceTables();
  DeviceTables(const DeviceTables&) = delete;
  DeviceTables& operator=(const DeviceTables&) = delete;

  /// reference::sgns_step's contract and result on the tables held here: centres (P),
  /// targets (P, 1 + k) with P <= max_pairs; returns the batch's loss. Throws
  /// andrea::InputError, changing nothing, on an id outside [0, V), lr not finite and > 0,
  /// a non-finite score or shapes that disagree. One difference: the reference also refuses
  /// finite scores whose row gradients overflow (tables near 1e38); this step does not look
  /// at the row gradients. On the CPU execution layer the bits equal the reference's; on a
  /// GPU they may differ in the last places: nvcc fuses a * b + c into one multiply-add, and
  /// the device's expf, exp and log1p are not glibc's.
  double sgns_step(TokenIds centres, TokenIdBatch targets, float lr);

  /// Copies the tables back: wte, wout (V, d_model). Throws andrea::InputError on a shape.
  void copy_to(FloatView wte, FloatView wout) const;

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

ANDREA_CUDA_END
