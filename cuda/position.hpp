// Lesson 4 — position table on the device: rows 0..n-1 of wpe.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// out[t] = wpe[t], t = 0..n-1; wpe (T, d_model), out (n, d_model). Same contract
/// as reference::positions. Kernel: grid (n), block over d_model: block t copies row t.
void positions(ConstFloatView wpe, std::int64_t n, FloatView out);

ANDREA_CUDA_END
