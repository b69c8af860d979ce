// Lesson 1 — lookup: a token id selects a row of the token table. No arithmetic.
#pragma once

#include "core/tensor.hpp"

namespace andrea::reference {

/// Gathers rows of the token embedding table: out[t] = wte[ids[t]].
///   wte (V, d_model) float32, ids (n) int32 token ids, out (n, d_model) float32.
/// Throws andrea::InputError, writing nothing, when ids is empty, an id is
/// outside [0, V), or wte / out are empty or disagree in shape.
/// out must not overlap wte.
/// Convention: torch.nn.Embedding.forward (PyTorch), encoder_forward (llm.c).
void lookup(ConstFloatView wte, TokenIds ids, FloatView out);

}  // namespace andrea::reference
