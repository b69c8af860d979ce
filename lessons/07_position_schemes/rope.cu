// Lesson 07_position_schemes — exercise. Generated from cuda/rope.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/rope.hpp. Run this lesson's tests: ctest --preset grade -L L07
// Lesson 7 — RoPE: turn each pair of a query or key row by an angle that grows with
// the row's position.
//
//   grid  = n blocks, block r rotates row r (its position is positions[r])
//   block = up to 256 threads striding over the d / 2 pairs
//
//        row r:  (x0, x1) (x2, x3) ... (x_{d-2}, x_{d-1})      pair i = columns 2i, 2i + 1
//        thread i:  angle = positions[r] * theta_i
//                   (a, b) -> (a cos - b sin, a sin + b cos)    one float2 in, one out
//
// Angle, cos, sin and the products are double and rounded once (see cuda/sinusoidal.cu
// for why a float32 angle is not good enough at positions near 1,000).
#include "cuda/rope.hpp"

#include <algorithm>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// Your helper functions and kernels go here.

}  // namespace

void rope(ConstFloatView x, std::span<const std::int32_t> positions, double base, FloatView out) {
  // TODO(lesson 07_position_schemes): write rope() here.
  throw NotImplemented("07_position_schemes/rope.cu", "rope");
}

ANDREA_CUDA_END
