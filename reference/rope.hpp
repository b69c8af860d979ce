// Lesson 7 — position schemes, step 2: rotary position embedding (RoPE), which
// turns the query and key rows of attention instead of adding a vector to x.
#pragma once

#include <cstdint>
#include <span>

#include "core/tensor.hpp"

namespace andrea::reference {

/// RoPE's default base (RoFormer; `theta = 10000.0` in Meta's LLaMA `precompute_freqs_cis`).
inline constexpr double rope_default_base = 10000.0;

/// Rotates every pair (2i, 2i + 1) of row r of x by the angle positions[r] * theta_i,
/// theta_i = base^(-2i / d), in radians (Su et al. 2021, RoFormer eq. 34; LLaMA's
/// `apply_rotary_emb`, which multiplies the pair as a complex number by e^(i angle)):
///   out[r, 2i]     = x[r, 2i] * cos(angle) - x[r, 2i + 1] * sin(angle)
///   out[r, 2i + 1] = x[r, 2i] * sin(angle) + x[r, 2i + 1] * cos(angle)
///   x (n, d) float32 query or key rows; positions (n) int32, the position of each row;
///   out (n, d) float32, may be x itself. Angle and products in double, rounded once.
/// Hugging Face models pair (i, i + d/2) instead ("rotate half"): see lessons/07.
/// Throws andrea::InputError, writing nothing, when x is empty, d is odd ("d 5 is odd:
/// RoPE rotates pairs of columns"), positions has not n entries, a position is
/// negative ("position -1 at row 2 is negative: positions start at 0"), base is not finite
/// and > 0 ("RoPE base 0 is not a finite number > 0"), x holds a non-finite value,
/// or out is not (n, d).
void rope(ConstFloatView x, std::span<const std::int32_t> positions, double base, FloatView out);

}  // namespace andrea::reference
