// Lesson 10_vocab_parallel — exercise. Generated from cuda/vocab_parallel.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/vocab_parallel.hpp. Run this lesson's tests: ctest --preset grade -L L10
// Lesson 10 — the masked lookup: lesson 1's gather, but a rank reads only its own rows.
//
//   grid  = B * n blocks; block q makes row q of this rank's partial output
//   block = up to 256 threads striding over the row
//
//        id = ids[q]        local = id - first
//        0 <= local < real_rows  ->  out[q] = wte_shard[local]   (this rank's row)
//        otherwise               ->  out[q] = 0                  (another rank's row)
//
// The test is done on the local index, so the kernel never reads outside the shard even
// for an id no check has seen, and padding rows (local >= real_rows) are never read.
#include "cuda/vocab_parallel.hpp"

#include <algorithm>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// Your helper functions and kernels go here.

}  // namespace

void vocab_parallel_lookup(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                           FloatView out) {
  // TODO(lesson 10_vocab_parallel): write vocab_parallel_lookup() here.
  throw NotImplemented("10_vocab_parallel/vocab_parallel.cu", "vocab_parallel_lookup");
}

ANDREA_CUDA_END
