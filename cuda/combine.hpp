// Lesson 5 — combine on the device: the fused x[b, t] = wte[ids[b, t]] + wpe[t].
#pragma once

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// out[t] = wte[ids[t]] + wpe[t]; (n, d_model). Same contract as reference::combine.
void combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out);

/// out[b * n + t] = wte[ids[b][t]] + wpe[t]; ids (B, n), out (B * n, d_model).
/// Same contract as reference::combine_batch. Kernel: grid (B * n), one block per
/// output row r; its position is t = r % n, never the batch index r / n.
void combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out);

ANDREA_CUDA_END
