// The "fast CPU" combine: the same contract as reference::combine and
// reference::combine_batch (reference/combine.hpp), written for the vectoriser.
// reference_bench measures it beside the plain reference; bench/README.md has the figures.
#pragma once

#include "core/tensor.hpp"

namespace andrea::bench {

/// out[t] = wte[ids[t]] + wpe[t]; (n, d_model) float32. Validates with
/// check::combine_args first (andrea::InputError, nothing written). out must not
/// overlap wte or wpe.
void fast_combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out);

/// out[b * n + t] = wte[ids[b][t]] + wpe[t]; ids (B, n), out (B * n, d_model).
/// Validates with check::combine_batch_args first. out must not overlap wte or wpe.
void fast_combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out);

}  // namespace andrea::bench
