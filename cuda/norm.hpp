// Lesson 2 — L2 norm on the device: one block per row, a block-wide reduction.
#pragma once

#include <span>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// ||v||, float32 in, squares summed in double. Same contract as reference::l2_norm.
float l2_norm(std::span<const float> v);

/// out[r] = ||m[r]||; m (rows, cols), out (rows). Same contract as
/// reference::row_norms. Kernel: grid (rows), block (256); each thread sums the
/// squares of a strided slice of the row, then a shared-memory tree reduction and
/// a warp shuffle add the 256 partial sums (written out in cuda/norm.cu).
void row_norms(ConstFloatView m, std::span<float> out);

ANDREA_CUDA_END
