// The "fast CPU" backward: the same contract as reference::embedding_backward
// (reference/backward.hpp), its row additions written for the vectoriser.
// reference_bench measures it beside the plain reference; bench/README.md has the figures.
#pragma once

#include "core/tensor.hpp"

namespace andrea::bench {

/// dwte[ids[b][t]] += dout[b * n + t], dwpe[t] += dout[b * n + t], p = b * n + t ascending;
/// ids (B, n), dout (B * n, d_model), dwte (V, d_model), dwpe (T, d_model) float32.
/// The same errors as check::embedding_backward_args (andrea::InputError, nothing written):
/// shapes and ids before any change; dout's values as its rows are added, the changed rows
/// put back before the throw (dout is read once, not twice). The undo journal is
/// thread_local: threads may call it at once, and each keeps a buffer of
/// (min(V, B * n) + n) * d_model floats between calls (28 MB at B = 8, n = 1,024, of which
/// a call writes one row per distinct id and per position: 6 MB with 968 distinct ids).
/// dout must not overlap dwte or dwpe; dwte and dwpe may share memory (the reference then
/// does the work, in its order). The same bits as the reference: one
/// float32 addition per element, in the same order.
void fast_embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe);

}  // namespace andrea::bench
