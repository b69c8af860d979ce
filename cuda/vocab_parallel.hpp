// Lesson 10 — the masked lookup of one rank on the device (vocabulary parallelism).
#pragma once

#include "core/tensor.hpp"
#include "core/vocab_shard.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// out[q] = wte_shard[ids[q] - shard.first] when the rank owns ids[q], else zeros.
/// Same contract and errors as reference::vocab_parallel_lookup (reference/vocab_parallel.hpp);
/// ids are validated on the host against the real V before any launch. Also throws
/// andrea::CudaError when a CUDA call fails. Kernel: grid (B * n), one block per output row,
/// as lesson 1's lookup; a block whose id another rank owns writes zeros. The sum over
/// ranks (MPI_Allreduce) runs on host buffers: the result comes back to `out` on the host.
void vocab_parallel_lookup(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                           FloatView out);

ANDREA_CUDA_END
