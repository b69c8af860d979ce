// Lesson 2 — L2 norm: the length of an embedding vector.
#pragma once

#include <span>

#include "core/tensor.hpp"

namespace andrea::reference {

/// ||v|| = sqrt(v_0^2 + ... + v_{d-1}^2) of a vector of d float32 values.
/// Squares are summed in double: a float32 squared is at most ~1.2e77 and at
/// least ~2e-90, both exact-range in double, so [1e20, 1, 1] gives 1e20 and
/// [1e-30, 1e-30] gives 1.41e-30 (a float32 sum would give inf and 0).
/// Throws andrea::InputError when v is empty or holds a non-finite value.
/// Convention: torch.linalg.vector_norm(v, ord=2).
float l2_norm(std::span<const float> v);

/// The L2 norm of every row: out[r] = ||m[r]||.
///   m (rows, cols) float32, out (rows) float32.
/// Throws andrea::InputError, writing nothing, when m is empty, out.size() != rows
/// or m holds a non-finite value.
void row_norms(ConstFloatView m, std::span<float> out);

}  // namespace andrea::reference
