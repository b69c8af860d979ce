// Lesson 3 — dot product and cosine similarity: how aligned two vectors are.
#pragma once

#include <span>

#include "core/tensor.hpp"

namespace andrea::reference {

/// u . v = u_0 v_0 + ... + u_{d-1} v_{d-1} = ||u|| ||v|| cos(theta).
///   u, v (d) float32; products and sum in double, rounded to float32 once.
/// Throws andrea::InputError when u or v is empty, their sizes differ, or either
/// holds a non-finite value. Convention: torch.dot.
float dot(std::span<const float> u, std::span<const float> v);

/// cos(theta) = u . v / (||u|| ||v||), in [-1, 1].
/// When u or v is the zero vector the angle is undefined and the result is 0,
/// never NaN (torch.nn.functional.cosine_similarity gives 0 there too).
/// Throws like dot().
float cosine_similarity(std::span<const float> u, std::span<const float> v);

/// The cosine similarity of every pair of rows: out[i][j] = cos(rows[i], rows[j]).
///   rows (k, d) float32, out (k, k) float32, symmetric.
/// Throws andrea::InputError, writing nothing, when rows is empty, out is not
/// (k, k), or rows holds a non-finite value.
void cosine_matrix(ConstFloatView rows, FloatView out);

}  // namespace andrea::reference
