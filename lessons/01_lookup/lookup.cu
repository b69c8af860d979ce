// Lesson 01_lookup: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/lookup.hpp.
// Grade it: python3 lessons/grade.py -L L01
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
  // TODO: about 6 lines (the body of lookup_kernel).
}

}  // namespace

void lookup(ConstFloatView wte, TokenIds ids, FloatView out) {
  // TODO(lesson 01_lookup): write the kernel and its launch; then delete the next line.
  throw NotImplemented("01_lookup/lookup.cu", "lookup");
  check::lookup_args(wte, ids, out);  // on the host, before any launch

  const DeviceBuffer<float> d_wte(wte.flat());
  const DeviceBuffer<std::int32_t> d_ids(ids);
  DeviceBuffer<float> d_out(out.size());
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

ANDREA_CUDA_END
