// Lesson 4 — position table: row t of a learned (T, d_model) table says "position t".
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace andrea::reference {

/// The position embeddings of a sequence of length n: out[t] = wpe[t], t = 0..n-1.
///   wpe (T, d_model) float32, out (n, d_model) float32.
/// Throws andrea::InputError, writing nothing, when n < 1, n > T ("sequence
/// length 1025 exceeds context length 1024"), or the shapes disagree.
/// Convention: wpe(torch.arange(n)) in nanoGPT's GPT.forward (GPT-2's learned
/// absolute positions).
void positions(ConstFloatView wpe, std::int64_t n, FloatView out);

}  // namespace andrea::reference
