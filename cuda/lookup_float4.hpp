// Lesson 1, going further — lookup on the device with 16-byte float4 copies.
#pragma once

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// out[t] = wte[ids[t]]; wte (V, d_model), ids (n), out (n, d_model), float32, exactly as
/// cuda::lookup (cuda/lookup.hpp): the forward of PyTorch's nn.Embedding, the token half of
/// llm.c's encoder_forward. Same contract and errors as reference::lookup: ids validated on the
/// host before any launch, andrea::InputError with nothing written; andrea::CudaError when a
/// CUDA call fails. Kernel: grid (n), one block per output row; when d_model % 4 == 0 each
/// thread copies a float4 (16 bytes) per step, a quarter of the memory instructions of
/// cuda::lookup; other widths take single floats. Not graded: lesson 1's second rung.
/// out must not overlap wte.
void lookup_float4(ConstFloatView wte, TokenIds ids, FloatView out);

ANDREA_CUDA_END
