// Lesson 3 — dot product and cosine similarity on the device.
#pragma once

#include <span>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// u . v in double, rounded to float32. Same contract as reference::dot.
float dot(std::span<const float> u, std::span<const float> v);

/// u . v / (||u|| ||v||), 0 for a zero vector. Same contract as reference::cosine_similarity.
float cosine_similarity(std::span<const float> u, std::span<const float> v);

/// out[i][j] = cos(rows[i], rows[j]); rows (k, d), out (k, k). Same contract as
/// reference::cosine_matrix. Kernel: grid (k, k), one block of 256 threads per
/// pair computing u.v, u.u and v.v with three block_sum reductions. CUDA limits
/// gridDim.y to 65,535, so k > 65,535 fails with andrea::CudaError.
void cosine_matrix(ConstFloatView rows, FloatView out);

ANDREA_CUDA_END
