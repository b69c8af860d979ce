// Lesson 1 — lookup on the device: one block per output row gathers wte[ids[t]].
#pragma once

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// out[t] = wte[ids[t]]; wte (V, d_model), ids (n), out (n, d_model), float32.
/// Same contract and errors as reference::lookup (reference/lookup.hpp); ids are
/// validated on the host before any launch. Also throws andrea::CudaError when a
/// CUDA call fails. Kernel: grid (n), one block per output row; the block's
/// threads (the row width rounded up to a multiple of 32, at most 256) copy 16-byte
/// float4s when d_model % 4 == 0, else single floats (llm.c encoder_forward).
/// out must not overlap wte.
void lookup(ConstFloatView wte, TokenIds ids, FloatView out);

ANDREA_CUDA_END
