// Lesson 8 — the backward pass on the device: the atomic kernel (step 1) and the
// deterministic one (step 2). The contract is reference/backward.hpp.
#pragma once

#include <vector>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

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

/// Step 2's grouping: the flat positions of ids grouped by id, as CSR in host memory.
/// Distinct id u (ascending) is rows[u]; its positions are positions[offsets[u]] ..
/// positions[offsets[u + 1] - 1], ascending. A counting sort, O(P + vocab_size), as llm.c's
/// encoder_backward buckets on the host (PyTorch sorts (id, position) on the device instead).
/// ids (P) must already be in [0, vocab_size): nothing is checked here.
struct PositionGroups {
  std::vector<std::int32_t> rows, offsets, positions;  ///< (U), (U + 1), (P)
};
PositionGroups group_positions(TokenIds ids, std::int64_t vocab_size);

/// Step 2's kernel on buffers already in device memory (wte_backward uploads them;
/// DeviceTables, cuda/device_tables.hpp, keeps them there): one thread per (u, c) adds
/// dout[positions[k]][c] for k ascending in [offsets[u], offsets[u + 1]) into
/// dwte[rows[u]][c]. dout (P, d_model), dwte (at least max(rows) + 1, d_model) float32;
/// rows, offsets, positions from group_positions, distinct = U. Throws andrea::CudaError if
/// the launch fails.
void launch_wte_backward(const float* dout, const std::int32_t* rows, const std::int32_t* offsets,
                         const std::int32_t* positions, float* dwte, std::int64_t distinct,
                         std::int64_t d_model);

/// Bit-identical to reference::wpe_backward: one thread per (t, c) adds dout[b * n + t][c]
/// for b = 0, 1, ..., B - 1.
void wpe_backward(ConstFloatView dout, std::int64_t n, FloatView dwpe);

/// wte_backward and wpe_backward after every check (reference::embedding_backward's contract).
void embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe);

/// dw[v] = 0 for each v in ids. Same contract as reference::zero_rows.
/// Kernel: one block per id, threads striding over the row (a repeated id writes 0 twice).
void zero_rows(TokenIds ids, FloatView dw);

ANDREA_CUDA_END
