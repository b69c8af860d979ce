// Lesson 07_position_schemes: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/sinusoidal.hpp.
// Grade it: python3 lessons/grade.py -L L07
// Lesson 7 — the sinusoidal position table: nothing is read, every element is computed.
//
//   grid  = n blocks, block pos makes row pos
//   block = up to 256 threads striding over the d_model / 2 pairs (sin, cos)
//
//        row pos:  [ sin(pos w_0), cos(pos w_0), sin(pos w_1), cos(pos w_1), ... ]
//        thread i writes pair i as one float2: columns 2i and 2i + 1
//
// The float32-angle pitfall: pos * w_i in float32 carries a rounding error of up to
// half an ulp of the angle (ulp(1000) = 6.1e-5), and sin/cos pass it on, so a table
// built from float32 angles is off by ~7e-5 near pos 1,000. Here w_i, the angle and
// sin/cos are all double, then rounded once to float32 (error <= 3e-8). A GPU's double
// rate is low on consumer cards (1/64 of float on many), but the table is made once
// per (n, d_model) and reused, so the cost does not matter; see lessons/07 for the
// other way (reduce the angle exactly).
#include "cuda/sinusoidal.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

// out (n, d) viewed as (n, d / 2) float2 pairs; pairs = d / 2.
__global__ void sinusoidal_kernel(float2* out, std::int64_t pairs) {
  // TODO: about 8 lines (the body of sinusoidal_kernel).
}

}  // namespace

void sinusoidal_table(std::int64_t n, std::int64_t d_model, std::int64_t context_length,
                      FloatView out) {
  // TODO(lesson 07_position_schemes): write the kernel and its launch; then delete the next line.
  throw NotImplemented("07_position_schemes/sinusoidal.cu", "sinusoidal_table");
  check::sinusoidal_table_args(n, d_model, context_length, out);

  DeviceBuffer<float> d_out(out.size());
  const std::int64_t pairs = d_model / 2;
  const unsigned threads = threads_per_row(pairs);
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

ANDREA_CUDA_END
