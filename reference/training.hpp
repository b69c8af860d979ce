// Lesson 9 — training the table: skip-gram with negative sampling (SGNS).
//
// Mikolov, Sutskever, Chen, Corrado, Dean, "Distributed Representations of Words and
// Phrases and their Compositionality" (NeurIPS 2013), equation (4). For a centre word c
// and a context word o seen near it, with k negatives n_1..n_k drawn at random:
//   loss = -log sigmoid(wte[c] . wout[o]) - sum_i log sigmoid(-wte[c] . wout[n_i])
// wte is the input table (V, d_model), wout a separate, untied output table (V, d_model).
//
// A batch holds P pairs. centres (P) are rows of wte; targets (P, 1 + k) are rows of
// wout, column 0 the context word (label 1), columns 1..k the negatives (label 0).
// The step is four small pieces, mirrored one kernel each in cuda/training.cu:
//   pair_scores      s[p][j] = wte[centres[p]] . wout[targets[p][j]]
//   score_gradients  g[p][j] = sigmoid(s[p][j]) - label[j]   (dloss/ds), and the loss
//   row_gradients    dcentre[p] = sum_j g[p][j] wout[targets[p][j]]
//                    dtarget[p (1 + k) + j] = g[p][j] wte[centres[p]]
//   then lesson 8:   wte_backward + sgd_step_rows on each table, zero_rows to clear.
#pragma once

#include "core/tensor.hpp"

namespace andrea::reference {

/// s[p][j] = wte[centres[p]] . wout[targets[p][j]], float32 products summed in float32,
/// c ascending.  wte, wout (V, d_model); centres (P); targets (P, 1 + k); scores (P, 1 + k).
/// Throws andrea::InputError, writing nothing, when an id is outside [0, V), P < 1, the
/// tables' shapes differ, or scores is not (P, 1 + k).
void pair_scores(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                 FloatView scores);

/// g[p][j] = sigmoid(s[p][j]) - label, label 1 in column 0 and 0 in the others: the
/// derivative of the loss with respect to the score. Returns the loss of the batch,
///   sum_p [ softplus(-s[p][0]) + sum_{j>=1} softplus(s[p][j]) ],  softplus(x) = log(1 + e^x),
/// summed in double (-log sigmoid(x) = softplus(-x), computed without overflow).
///   scores, grads (P, 1 + k) float32. Throws andrea::InputError, writing nothing, when the
/// shapes differ, scores is empty or holds a non-finite value.
double score_gradients(ConstFloatView scores, FloatView grads);

/// The gradients of the loss with respect to the rows used (chain rule through the dot):
///   dcentre (P, d_model):          dcentre[p] = sum_j g[p][j] wout[targets[p][j]], j ascending
///   dtarget (P (1 + k), d_model):  dtarget[p (1 + k) + j] = g[p][j] wte[centres[p]]
/// Per-row gradients, one row per use: lesson 8's wte_backward adds them into (V, d_model).
/// Throws andrea::InputError, writing nothing, on an id outside [0, V) or shapes that disagree.
void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                   ConstFloatView grads, FloatView dcentre, FloatView dtarget);

/// Buffers of one step, sized for P pairs of 1 + k targets; dwte and dwout (V, d_model)
/// must be all zero before a step, and are all zero again after it.
struct TrainingScratch {
  Matrix scores, grads;     ///< (P, 1 + k)
  Matrix dcentre, dtarget;  ///< (P, d_model), (P (1 + k), d_model)
  Matrix dwte, dwout;       ///< (V, d_model)
  TrainingScratch(std::int64_t vocab_size, std::int64_t d_model, std::int64_t max_pairs,
                  std::int64_t targets_per_pair);
};

/// One SGD step of SGNS on a batch of P pairs: the four pieces above with gradients from
/// the tables as they were before the step, then, for each table, lesson 8's
/// wte_backward (dw[id] += row gradient, ascending position), sgd_step_rows
/// (w[v] -= lr dw[v], each touched row once) and zero_rows. Rows of ids absent from the
/// batch are not written. Returns the batch's loss (summed over pairs, before the step).
///   wte, wout (V, d_model) updated in place; centres (P) <= scratch's P; targets (P, 1 + k).
/// Throws andrea::InputError, changing nothing, when an id is outside [0, V), lr is not
/// finite and > 0, or the shapes disagree with each other or with scratch.
double sgns_step(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets, float lr,
                 TrainingScratch& scratch);

}  // namespace andrea::reference
