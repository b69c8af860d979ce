// Lesson 7 — the sinusoidal position table on the device.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// out[pos, 2i] = sin(pos * w_i), out[pos, 2i + 1] = cos(pos * w_i), w_i = 10000^(-2i/d_model);
/// out (n, d_model) float32. Same contract (and errors) as reference::sinusoidal_table.
/// Kernel: grid (n), block over the d_model / 2 pairs; the angle is formed in double.
void sinusoidal_table(std::int64_t n, std::int64_t d_model, std::int64_t context_length,
                      FloatView out);

ANDREA_CUDA_END
