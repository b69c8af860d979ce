// Lesson 4 — the position embeddings of a sequence: rows 0..n-1 of wpe.
//
//   grid  = n blocks, block t copies row t of wpe into row t of out
//   block = up to 256 threads striding over the d_model columns
//
// No ids here: position t always reads row t, so the access is one contiguous
// run of n * d_model floats.
#include "cuda/position.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

__global__ void positions_kernel(const float* wpe, float* out, std::int64_t d) {
  // BEGIN SOLUTION
  const std::int64_t t = blockIdx.x;
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) out[t * d + c] = wpe[t * d + c];
  // END SOLUTION
}

}  // namespace

void positions(ConstFloatView wpe, std::int64_t n, FloatView out) {
  check::positions_args(wpe, n, out);

  const DeviceBuffer<float> d_wpe(wpe.flat().first(static_cast<std::size_t>(n * wpe.cols())));
  DeviceBuffer<float> d_out(out.size());
  // BEGIN SOLUTION (launch)
  positions_kernel<<<static_cast<unsigned>(n), threads_per_row(wpe.cols())>>>(
      d_wpe.get(), d_out.get(), wpe.cols());
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

ANDREA_CUDA_END
