// Lesson 8 — the backward pass on the device: the atomic kernel (step 1) and the
// deterministic one (step 2). The contract is reference/backward.hpp.
#pragma once

#include "cuda/flavor.hpp"
#include "reference/tensor.hpp"

ANDREA_CUDA_BEGIN

/// Step 1, the obvious kernel: one thread per (b, t, c) does
///   atomicAdd(&dwte[ids[b, t]][c], dout[b * n + t][c]) and atomicAdd(&dwpe[t][c], same).
/// Same shapes, checks and errors as reference::embedding_backward, and the same sums up to
/// rounding: the order in which the additions reach one element is the order the threads
/// arrive, so the low bits can change from run to run (float addition is not associative).
void embedding_backward_atomic(TokenIdBatch ids, ConstFloatView dout, FloatView dwte,
                               FloatView dwpe);

/// Step 2, deterministic: bit-identical to reference::wte_backward in every thread order.
/// The host groups the flat positions of each id (a counting sort, ascending positions),
/// then one thread per (distinct id, channel) adds its positions' dout in that order.
void wte_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte);

/// wte_backward on buffers that already live in device memory (lesson 9's trainer keeps its
/// tables there): ids (P) on the host, already checked to be in [0, vocab_size) (nothing is
/// checked here); dout (P, d_model) and dwte (vocab_size, d_model) device pointers. The
/// same grouping and kernel as wte_backward, so the same bits.
void wte_backward_on_device(TokenIds ids, const float* dout, float* dwte, std::int64_t vocab_size,
                            std::int64_t d_model);

/// Bit-identical to reference::wpe_backward: one thread per (t, c) adds dout[b * n + t][c]
/// for b = 0, 1, ..., B - 1.
void wpe_backward(ConstFloatView dout, std::int64_t n, FloatView dwpe);

/// wte_backward and wpe_backward after every check (reference::embedding_backward's contract).
void embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe);

ANDREA_CUDA_END
