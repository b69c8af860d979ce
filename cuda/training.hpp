// Lesson 9 — the skip-gram training step on the device: one kernel per piece.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

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
void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                   ConstFloatView grads, FloatView dcentre, FloatView dtarget);

// The launches on buffers already in device memory: the public pieces above upload their
// inputs and call these; DeviceTables (cuda/device_tables.hpp) keeps the tables on the device
// and calls them at every step. count = P (1 + k) scores, k1 = 1 + k, d = d_model; ids in
// range and shapes are the caller's to check. Each throws andrea::CudaError if the launch fails.

/// pair_scores' kernel: scores (count) from wte, wout (V, d), centres (P), targets (count).
void launch_pair_scores(const float* wte, const float* wout, const std::int32_t* centres,
                        const std::int32_t* targets, float* scores, std::int64_t count,
                        std::int64_t k1, std::int64_t d);
/// score_gradients' kernel: grads and the loss terms (count, double) from the scores.
void launch_score_gradients(const float* scores, float* grads, double* terms, std::int64_t count,
                            std::int64_t k1);
/// row_gradients' kernel: dcentre (pairs, d) and dtarget (pairs k1, d).
void launch_row_gradients(const float* wte, const float* wout, const std::int32_t* centres,
                          const std::int32_t* targets, const float* grads, float* dcentre,
                          float* dtarget, std::int64_t pairs, std::int64_t k1, std::int64_t d);
/// The sparse SGD step on a compact gradient: w[rows[u]][c] -= lr dw[u][c] for u < count,
/// rows distinct (each row moves once). One block per row u, threads striding over c.
void launch_sgd_rows(const std::int32_t* rows, std::int64_t count, const float* dw, float* w,
                     float lr, std::int64_t d);

ANDREA_CUDA_END
