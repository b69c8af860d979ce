// Lesson 6 — parameter count on the device: allocate both tables, fill them with
// an init kernel (one thread per parameter), count what was written.
#pragma once

#include <cstdint>

#include "cuda/flavor.hpp"
#include "reference/params.hpp"

ANDREA_CUDA_BEGIN

/// Allocates wte (V, d_model) and wpe (T, d_model) on the device, fills them with
/// andrea::init_value (one thread per parameter, Philox4x32-10 + Box-Muller), copies
/// them into the host tables and reports the elements the kernel wrote (counted
/// on the device with atomicAdd) and the device bytes allocated for them.
/// Same contract and errors as reference::materialize; also throws andrea::CudaError.
ParameterReport materialize(const Config& config, std::uint64_t seed, FloatView wte, FloatView wpe);

ANDREA_CUDA_END
