// Lesson 05_combine — exercise. Generated from cuda/combine.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/combine.hpp. Run this lesson's tests: ctest --preset grade -L L05
// Lesson 5 — combine: the whole embedding layer in one kernel,
//   x[b, t] = wte[ids[b, t]] + wpe[t]
// fused so that x is written once (two separate passes would write and re-read it).
//
//   grid  = B * n blocks; block r makes output row r = b * n + t
//   block = up to 256 threads striding over the row (float4 when d_model % 4 == 0)
//
//        ids (B, n)         row r  ->  b = r / n, t = r % n
//        out (B * n, d)     out[r] = wte[ids[r]] + wpe[t]     (t, never b)
#include "cuda/combine.hpp"

#include <algorithm>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// Your helper functions and kernels go here.

}  // namespace

void combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out) {
  // TODO(lesson 05_combine): write combine() here.
  throw NotImplemented("05_combine/combine.cu", "combine");
}

void combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out) {
  // TODO(lesson 05_combine): write combine_batch() here.
  throw NotImplemented("05_combine/combine.cu", "combine_batch");
}

ANDREA_CUDA_END
