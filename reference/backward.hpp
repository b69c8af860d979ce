// Lesson 8 — the backward pass of the embedding layer, and the sparse SGD step.
//
// Forward (lesson 5): x[b * n + t] = wte[ids[b][t]] + wpe[t].
// Given dout = dL/dx, shape (B * n, d_model):
//   dwte[v] += sum of dout[p] over every flat position p = b * n + t with ids[p] = v
//   dwpe[t] += sum over b of dout[b * n + t]
// A row whose id does not occur receives nothing. The gradients ACCUMULATE (+=), as
// PyTorch's .grad and llm.c's encoder_backward do: zero the buffers first for a fresh step.
#pragma once

#include "core/tensor.hpp"

namespace andrea::reference {

/// Gradient of the token table: dwte[ids[p]] += dout[p] for every flat position p.
///   ids (B, n) int32, dout (B * n, d_model), dwte (V, d_model); float32. dout must not
///   overlap dwte (nor dwpe below).
/// Each row's contributions are summed in ascending flat position p = b * n + t: that
/// order is the contract the deterministic CUDA kernel reproduces bit for bit.
/// Throws andrea::InputError, writing nothing, when ids is empty, an id is outside [0, V),
/// dout is not (B * n, d_model), or dout holds a non-finite value. (n <= T is checked by
/// wpe_backward and embedding_backward, which see wpe's T.)
/// Convention: torch.nn.Embedding's backward (embedding_dense_backward); llm.c encoder_backward.
void wte_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte);

/// Gradient of the position table: dwpe[t] += sum over b of dout[b * n + t], b ascending.
///   dout (B * n, d_model) with n = the sequence length, dwpe (T, d_model); float32.
/// Throws andrea::InputError, writing nothing, when n < 1, n > T, dout's rows are not a
/// multiple of n, the widths disagree, or dout holds a non-finite value.
void wpe_backward(ConstFloatView dout, std::int64_t n, FloatView dwpe);

/// Both gradients of x = wte[ids] + wpe: wte_backward and wpe_backward, every check first.
///   ids (B, n), dout (B * n, d_model), dwte (V, d_model), dwpe (T, d_model).
/// Throws like both; when it throws, neither dwte nor dwpe has been written.
void embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe);

/// The sparse "zero_grad": dw[v] = 0 for each id v in ids; every other row is not touched.
/// After a step on ids, zero_rows(ids, dwte) clears exactly what the backward wrote, for
/// B * n * d_model writes instead of V * d_model (8,192 x 768 instead of 8,449 x 768 floats
/// at B = 8, n = 1,024; far fewer rows when ids repeat).
///   ids (any number) int32, dw (V, d_model) float32.
/// Throws andrea::InputError, writing nothing, when an id is outside [0, V) or dw is empty.
/// Convention: optimizer.zero_grad() of torch.optim restricted to the rows a sparse gradient holds.
void zero_rows(TokenIds ids, FloatView dw);

/// The sparse SGD step: w[v] -= lr * dw[v] for each distinct id v in ids, once per id
/// (an id that occurs 300 times is still stepped once: dw[v] already holds the sum).
/// Rows whose id does not occur are not touched (bit-identical after the step).
///   ids (any number) int32, dw (V, d_model), w (V, d_model); lr > 0 and finite.
/// Throws andrea::InputError, writing nothing, when an id is outside [0, V), lr is not finite
/// and positive, or the shapes disagree.
/// Convention: torch.optim.SGD on a sparse embedding gradient (nn.Embedding(sparse=True)).
void sgd_step_rows(TokenIds ids, ConstFloatView dw, float lr, FloatView w);

}  // namespace andrea::reference
