// Lesson 5, going further — combine on the device with 16-byte float4 loads and stores.
#pragma once

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// out[b * n + t] = wte[ids[b][t]] + wpe[t]; wte (V, d_model), wpe (T, d_model), ids (B, n),
/// out (B * n, d_model), float32, exactly as cuda::combine_batch (cuda/combine.hpp): llm.c's
/// encoder_forward, nanoGPT's tok_emb + pos_emb. Same contract and errors as
/// reference::combine_batch: ids validated on the host before any launch, andrea::InputError
/// with nothing written; andrea::CudaError when a CUDA call fails. Kernel: grid (B * n), one
/// block per output row; when d_model % 4 == 0 each thread reads two float4s and writes one
/// (16 bytes each) per step, a quarter of the memory instructions of cuda::combine_batch; other
/// widths take single floats. Not graded: lesson 5's second rung.
void combine_batch_float4(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out);

ANDREA_CUDA_END
