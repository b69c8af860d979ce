// Lesson 03_dot_product: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/dot.hpp.
// Grade it: python3 lessons/grade.py -L L03
// Lesson 3 — dot products and cosine similarities on the device.
//
//   grid  = (k, k) blocks; block (i, j) compares row i of `a` with row j of `b`
//   block = 256 threads; each sums a_c * b_c, a_c^2 and b_c^2 over a strided
//           slice of the columns, then three block_sum reductions give
//           u.v, ||u||^2 and ||v||^2, all in double.
// dot() and cosine_similarity() launch a 1 x 1 grid; cosine_matrix() a k x k one.
#include "cuda/dot.hpp"

#include "core/check.hpp"
#include "cuda/block_reduce.cuh"
#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

constexpr int kThreads = 256;

// dots[i * k + j] = a_i . b_j and cosines[i * k + j] = cos(a_i, b_j), k = gridDim.y;
// dots may be null (cosine_matrix needs only the cosines).
__global__ void pair_kernel(const float* a, const float* b, std::int64_t d, float* dots,
                            float* cosines) {
  // TODO: about 18 lines (the body of pair_kernel).
}

struct PairResult {
  float dot, cosine;
};

PairResult pair(std::span<const float> u, std::span<const float> v) {
  check::dot_args(u, v);
  const DeviceBuffer<float> d_u(u), d_v(v);
  DeviceBuffer<float> d_dot(1), d_cos(1);
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  PairResult r{};
  d_dot.copy_to({&r.dot, 1});
  d_cos.copy_to({&r.cosine, 1});
  return r;
}

}  // namespace

float dot(std::span<const float> u, std::span<const float> v) {
  // TODO(lesson 03_dot_product): write the kernel and its launch; then delete the next line.
  throw NotImplemented("03_dot_product/dot.cu", "dot");
  return pair(u, v).dot;
}

float cosine_similarity(std::span<const float> u, std::span<const float> v) {
  // TODO(lesson 03_dot_product): write the kernel and its launch; then delete the next line.
  throw NotImplemented("03_dot_product/dot.cu", "cosine_similarity");
  return pair(u, v).cosine;
}

void cosine_matrix(ConstFloatView rows, FloatView out) {
  // TODO(lesson 03_dot_product): write the kernel and its launch; then delete the next line.
  throw NotImplemented("03_dot_product/dot.cu", "cosine_matrix");
  check::cosine_matrix_args(rows, out);
  const DeviceBuffer<float> d_rows(rows.flat());
  DeviceBuffer<float> d_cos(out.size());
  // TODO: launch the kernel here, about 3 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_cos.copy_to(out.flat());
}

ANDREA_CUDA_END
