// Lesson 1 — lookup: gather rows of the token table on the device.
// Rung 1 of 2, the plain kernel: one float per thread per step. Rung 2 (float4): "Going
// further" in lessons/01_lookup/README.md.
//
//   grid  = n blocks, block t copies row ids[t] of wte into row t of out
//   block = up to 256 threads striding over the row's d_model floats
//
//        out row t  [ c0  c1  c2 ... c255 | c256 c257 ... c511 | c512 ... ]    d_model floats
//           thread:   0   1   2  ... 255  | 0    1    ... 255  | 0    ...
//
// Thread i copies columns i, i + 256, i + 512, ...: neighbouring threads copy neighbouring
// floats, so the 32 threads of a warp read 128 contiguous bytes (a coalesced access).
// One block per row rather than a 2-D grid: each block reads its id once, and gridDim.x
// allows 2^31 - 1 blocks where a grid with one row per blockIdx.y stops at 65,535 rows.
#include "cuda/lookup.hpp"

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

// wte (vocab_size, d), ids (gridDim.x), out (gridDim.x, d): out[t] = wte[ids[t]].
__global__ void lookup_kernel(const float* wte, const std::int32_t* ids, float* out, std::int64_t d,
                              std::int64_t vocab_size) {
  // BEGIN SOLUTION
  const std::int64_t t = blockIdx.x;
  const std::int32_t id = ids[t];
  if (id < 0 || id >= vocab_size) return;  // validated on the host; never read outside wte
  const float* src = wte + id * d;         // 64-bit offsets: id * d can exceed 2^31
  float* dst = out + t * d;
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) dst[c] = src[c];
  // END SOLUTION
}

}  // namespace

void lookup(ConstFloatView wte, TokenIds ids, FloatView out) {
  check::lookup_args(wte, ids, out);  // on the host, before any launch

  const DeviceBuffer<float> d_wte(wte.flat());
  const DeviceBuffer<std::int32_t> d_ids(ids);
  DeviceBuffer<float> d_out(out.size());
  // BEGIN SOLUTION (launch)
  lookup_kernel<<<static_cast<unsigned>(ids.size()), threads_per_row(wte.cols())>>>(
      d_wte.get(), d_ids.get(), d_out.get(), wte.cols(), wte.rows());
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

ANDREA_CUDA_END
