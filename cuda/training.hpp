// Lesson 9 — the skip-gram training step on the device: one kernel per piece.
#pragma once

#include "cuda/flavor.hpp"
#include "reference/tensor.hpp"

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

ANDREA_CUDA_END
