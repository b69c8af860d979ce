// Lesson 7 — rotary position embedding (RoPE) on the device.
#pragma once

#include <cstdint>
#include <span>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// Rotates pair (2i, 2i + 1) of row r of x by positions[r] * theta_i, theta_i = base^(-2i/d);
/// x, out (n, d) float32 (out may be x), positions (n) int32. Same contract (and errors) as
/// reference::rope. Kernel: grid (n), block over the d / 2 pairs; angle and products in double.
void rope(ConstFloatView x, std::span<const std::int32_t> positions, double base, FloatView out);

ANDREA_CUDA_END
