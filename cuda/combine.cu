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

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

// BEGIN SOLUTION
__device__ inline float add(float a, float b) { return a + b; }
__device__ inline float4 add(float4 a, float4 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
}
// END SOLUTION

// T is float or float4; d is the row width in T units; n the sequence length.
template <class T>
__global__ void combine_kernel(const T* wte, const T* wpe, const std::int32_t* ids, T* out,
                               std::int64_t n, std::int64_t d, std::int64_t vocab_size) {
  // BEGIN SOLUTION
  const std::int64_t r = blockIdx.x;
  const std::int64_t t = r % n;  // the position inside the sequence
  const std::int32_t id = ids[r];
  if (id < 0 || id >= vocab_size) return;  // validated on the host; never read outside wte
  const T* tok = wte + id * d;
  const T* pos = wpe + t * d;
  T* x = out + r * d;
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) x[c] = add(tok[c], pos[c]);
  // END SOLUTION
}

// ids (B, n) validated; out (B * n, d_model).
void launch_combine(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out) {
  const DeviceBuffer<float> d_wte(wte.flat()), d_wpe(wpe.flat());
  const DeviceBuffer<std::int32_t> d_ids(ids.flat());
  DeviceBuffer<float> d_out(out.size());
  // BEGIN SOLUTION (launch)
  const auto rows = static_cast<unsigned>(ids.size());
  const std::int64_t d = wte.cols();
  if (d % 4 == 0) {
    combine_kernel<<<rows, threads_per_row(d / 4)>>>(
        reinterpret_cast<const float4*>(d_wte.get()), reinterpret_cast<const float4*>(d_wpe.get()),
        d_ids.get(), reinterpret_cast<float4*>(d_out.get()), ids.cols(), d / 4, wte.rows());
  } else {
    combine_kernel<<<rows, threads_per_row(d)>>>(d_wte.get(), d_wpe.get(), d_ids.get(), d_out.get(),
                                                 ids.cols(), d, wte.rows());
  }
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

}  // namespace

void combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out) {
  check::combine_args(wte, wpe, ids, out);
  launch_combine(wte, wpe, TokenIdBatch(ids.data(), 1, static_cast<std::int64_t>(ids.size())), out);
}

void combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out) {
  check::combine_batch_args(wte, wpe, ids, out);
  launch_combine(wte, wpe, ids, out);
}

ANDREA_CUDA_END
