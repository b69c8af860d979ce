// Lesson 7 — position schemes, step 1: the fixed sinusoidal table of the original
// Transformer, a (n, d_model) table computed from a formula instead of learned.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace andrea::reference {

/// The sinusoidal position table, rows 0..n-1 (Vaswani et al. 2017, section 3.5):
///   out[pos, 2i]     = sin(pos * w_i)
///   out[pos, 2i + 1] = cos(pos * w_i),     w_i = 10000^(-2i / d_model), angle in radians,
/// the interleaved layout of the paper and of PyTorch's transformer tutorial
/// (`PositionalEncoding`: pe[:, 0::2] = sin, pe[:, 1::2] = cos).
///   out (n, d_model) float32; every element within 1e-6 of the float64 value: the
///   angle pos * w_i is formed in double (in float32 it is off by up to ~1e-4 near pos 1,000).
/// Throws andrea::InputError, writing nothing, when d_model is not a positive even
/// number ("d_model 5 is odd: sin and cos need pairs of columns"), n < 1,
/// n > context_length ("sequence length 1025 exceeds context length 1024"), or out
/// is not (n, d_model).
void sinusoidal_table(std::int64_t n, std::int64_t d_model, std::int64_t context_length,
                      FloatView out);

}  // namespace andrea::reference
