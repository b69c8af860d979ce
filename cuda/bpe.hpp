// Lesson 11 — counting the adjacent pairs of a corpus of token ids on the device: the
// histogram BPE training takes before each merge. Step 1 with global atomics, step 2 with a
// per-block histogram in shared memory. The contract is reference/bpe.hpp (count_pairs).
#pragma once

#include <cstdint>
#include <span>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// Step 1, the obvious kernel: one thread per position i < n - 1 does
///   atomicAdd(&counts[ids[i] * vocab_size + ids[i + 1]], 1)   (skipping a negative id).
/// Same contract, checks and errors as reference::count_pairs, and the same counts exactly:
/// integer addition does not depend on the order the threads arrive in. Also throws
/// andrea::CudaError when a CUDA call fails.
void count_pairs_atomic(TokenIds ids, std::int64_t vocab_size, std::span<std::int32_t> counts);

/// Step 2, privatised: grid (slices of 4,096 positions, tiles of 4,096 bins); each block
/// counts the pairs of its slice that fall in its tile into a histogram in shared memory
/// (atomics on shared memory: a hot bin still serialises the threads of one block, but close
/// by, not across the whole grid), then adds each non-zero bin to counts with one global
/// atomic. Same contract and counts as step 1. It pays while the V^2 bins fit in a few tiles
/// (V <= 64: one): every tile's block reads its whole slice of ids, so at V = 4,096 the ids are
/// read 4,096 times, far more traffic than step 1 (Kirk & Hwu's privatisation assumes a
/// histogram that fits in shared memory).
void count_pairs(TokenIds ids, std::int64_t vocab_size, std::span<std::int32_t> counts);

ANDREA_CUDA_END
