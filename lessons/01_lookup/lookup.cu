// Lesson 01_lookup — exercise. Generated from cuda/lookup.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/lookup.hpp. Run this lesson's tests: ctest --preset grade -L L01
// Lesson 1 — lookup: gather rows of the token table on the device.
//
//   grid  = n blocks, block t copies row ids[t] of wte into row t of out
//   block = up to 256 threads striding over the row:
//
//        out row t  [ c0 c1 c2 c3 | c4 c5 c6 c7 | ... ]    d_model floats
//                     thread 0      thread 1       ...    (float4 = 16 bytes each)
//
// When d_model is a multiple of 4 every row starts on a 16-byte boundary
// (cudaMalloc aligns to 256 bytes), so each thread moves a float4: a quarter of
// the memory instructions. Otherwise (d = 3, 5, 769 ...) it moves single floats.
#include "cuda/lookup.hpp"

#include <algorithm>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// Your helper functions and kernels go here.

}  // namespace

void lookup(ConstFloatView wte, TokenIds ids, FloatView out) {
  // TODO(lesson 01_lookup): write lookup() here.
  throw NotImplemented("01_lookup/lookup.cu", "lookup");
}

ANDREA_CUDA_END
