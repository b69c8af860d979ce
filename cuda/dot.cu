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
  // BEGIN SOLUTION
  const float* u = a + static_cast<std::int64_t>(blockIdx.x) * d;
  const float* v = b + static_cast<std::int64_t>(blockIdx.y) * d;
  double uv = 0.0, uu = 0.0, vv = 0.0;
  for (std::int64_t c = threadIdx.x; c < d; c += kThreads) {
    const double x = u[c], y = v[c];
    uv += x * y;
    uu += x * x;
    vv += y * y;
  }
  uv = block_sum<kThreads>(uv);
  uu = block_sum<kThreads>(uu);
  vv = block_sum<kThreads>(vv);
  if (threadIdx.x == 0) {
    const std::int64_t out = static_cast<std::int64_t>(blockIdx.x) * gridDim.y + blockIdx.y;
    if (dots != nullptr) dots[out] = static_cast<float>(uv);
    // The angle of a zero vector is undefined: 0, never 0/0 = NaN.
    cosines[out] = (uu == 0.0 || vv == 0.0) ? 0.0f : static_cast<float>(uv / (sqrt(uu) * sqrt(vv)));
  }
  // END SOLUTION
}

struct PairResult {
  float dot, cosine;
};

PairResult pair(std::span<const float> u, std::span<const float> v) {
  check::dot_args(u, v);
  const DeviceBuffer<float> d_u(u), d_v(v);
  DeviceBuffer<float> d_dot(1), d_cos(1);
  // BEGIN SOLUTION (launch)
  pair_kernel<<<dim3(1, 1), kThreads>>>(d_u.get(), d_v.get(), static_cast<std::int64_t>(u.size()),
                                        d_dot.get(), d_cos.get());
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  PairResult r{};
  d_dot.copy_to({&r.dot, 1});
  d_cos.copy_to({&r.cosine, 1});
  return r;
}

}  // namespace

float dot(std::span<const float> u, std::span<const float> v) { return pair(u, v).dot; }

float cosine_similarity(std::span<const float> u, std::span<const float> v) {
  return pair(u, v).cosine;
}

void cosine_matrix(ConstFloatView rows, FloatView out) {
  check::cosine_matrix_args(rows, out);
  const DeviceBuffer<float> d_rows(rows.flat());
  DeviceBuffer<float> d_cos(out.size());
  // BEGIN SOLUTION (launch)
  const auto k = static_cast<unsigned>(rows.rows());
  pair_kernel<<<dim3(k, k), kThreads>>>(d_rows.get(), d_rows.get(), rows.cols(), nullptr,
                                        d_cos.get());
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_cos.copy_to(out.flat());
}

ANDREA_CUDA_END
