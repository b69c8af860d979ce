// Lesson 07_position_schemes: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/rope.hpp.
// Grade it: python3 lessons/grade.py -L L07
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

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

// x, out (n, d) viewed as (n, d / 2) float2 pairs; pairs = d / 2.
__global__ void rope_kernel(const float2* x, const std::int32_t* positions, double base,
                            float2* out, std::int64_t pairs) {
  // TODO: about 10 lines (the body of rope_kernel).
}

}  // namespace

void rope(ConstFloatView x, std::span<const std::int32_t> positions, double base, FloatView out) {
  // TODO(lesson 07_position_schemes): write the kernel and its launch; then delete the next line.
  throw NotImplemented("07_position_schemes/rope.cu", "rope");
  check::rope_args(x, positions, base, out);

  const DeviceBuffer<float> d_x(x.flat());
  const DeviceBuffer<std::int32_t> d_positions(positions);
  DeviceBuffer<float> d_out(out.size());
  const std::int64_t pairs = x.cols() / 2;
  const unsigned threads = threads_per_row(pairs);
  // TODO: launch the kernel here, about 3 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());  // x was copied first, so out may be x
}

ANDREA_CUDA_END
