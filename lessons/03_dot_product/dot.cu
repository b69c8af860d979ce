// Lesson 03_dot_product — exercise. Generated from cuda/dot.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/dot.hpp. Run this lesson's tests: ctest --preset grade -L L03
// Lesson 3 — dot products and cosine similarities on the device.
//
//   grid  = (k, k) blocks; block (i, j) compares row i of `a` with row j of `b`
//   block = 256 threads; each sums a_c * b_c, a_c^2 and b_c^2 over a strided
//           slice of the columns, then three block_sum reductions give
//           u.v, ||u||^2 and ||v||^2, all in double.
// dot() and cosine_similarity() launch a 1 x 1 grid; cosine_matrix() a k x k one.
#include "cuda/dot.hpp"

#include "cuda/block_reduce.cuh"
#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// Your helper functions and kernels go here.

}  // namespace

float dot(std::span<const float> u, std::span<const float> v) {
  // TODO(lesson 03_dot_product): write dot() here.
  throw NotImplemented("03_dot_product/dot.cu", "dot");
}

float cosine_similarity(std::span<const float> u, std::span<const float> v) {
  // TODO(lesson 03_dot_product): write cosine_similarity() here.
  throw NotImplemented("03_dot_product/dot.cu", "cosine_similarity");
}

void cosine_matrix(ConstFloatView rows, FloatView out) {
  // TODO(lesson 03_dot_product): write cosine_matrix() here.
  throw NotImplemented("03_dot_product/dot.cu", "cosine_matrix");
}

ANDREA_CUDA_END
