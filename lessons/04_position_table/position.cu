// Lesson 04_position_table — exercise. Generated from cuda/position.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/position.hpp. Run this lesson's tests: ctest --preset grade -L L04
// Lesson 4 — the position embeddings of a sequence: rows 0..n-1 of wpe.
//
//   grid  = n blocks, block t copies row t of wpe into row t of out
//   block = up to 256 threads striding over the d_model columns
//
// No ids here: position t always reads row t, so the access is one contiguous
// run of n * d_model floats.
#include "cuda/position.hpp"

#include <algorithm>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// Your helper functions and kernels go here.

}  // namespace

void positions(ConstFloatView wpe, std::int64_t n, FloatView out) {
  // TODO(lesson 04_position_table): write positions() here.
  throw NotImplemented("04_position_table/position.cu", "positions");
}

ANDREA_CUDA_END
