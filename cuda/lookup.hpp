// Lesson 1 — lookup on the device: one block per output row gathers wte[ids[t]].
#pragma once

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// out[t] = wte[ids[t]]; wte (V, d_model), ids (n), out (n, d_model), float32: the forward of
/// PyTorch's nn.Embedding, the token half of llm.c's encoder_forward.
/// Same contract and errors as reference::lookup (reference/lookup.hpp); ids are
/// validated on the host before any launch. Also throws andrea::CudaError when a
/// CUDA call fails. Kernel: grid (n), one block per output row; the block's
/// threads (the row width rounded up to a multiple of 32, at most 256) copy one float
/// each per step of a stride over the row (the float4 version: cuda/lookup_float4.hpp).
/// out must not overlap wte.
void lookup(ConstFloatView wte, TokenIds ids, FloatView out);

ANDREA_CUDA_END
