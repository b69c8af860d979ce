// Lesson 5 — combine: x_t = wte[id_t] + wpe[t], the input of the first block.
#pragma once

#include "core/tensor.hpp"

namespace andrea::reference {

/// The embedding layer for one sequence: out[t] = wte[ids[t]] + wpe[t].
///   wte (V, d_model), wpe (T, d_model), ids (n) int32, out (n, d_model); float32.
/// out must not overlap wte or wpe.
/// Throws andrea::InputError, writing nothing, when n < 1, n > T, an id is
/// outside [0, V), or the shapes disagree.
/// Convention: tok_emb + pos_emb in nanoGPT's GPT.forward; encoder_forward in llm.c.
void combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out);

/// The embedding layer for a batch: out[b * n + t] = wte[ids[b][t]] + wpe[t].
/// The position is t, the index inside the sequence, never the batch index b.
///   ids (B, n) int32, out (B * n, d_model) float32, i.e. (B, n, d_model) flattened.
/// Throws like combine(); an id's position in the message is its flat index b * n + t.
void combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out);

}  // namespace andrea::reference
