// Lesson 01_lookup: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/lookup.hpp.
// Grade it: python3 lessons/grade.py -L L01
// Lesson 1 — lookup: gather rows of the token table on the device.
//
//   grid  = n blocks, block t copies row ids[t] of wte into row t of out
//   block = up to 256 threads striding over the row:
//
//        out row t  [ c0 c1 c2 c3 | c4 c5 c6 c7 | ... ]    d_model floats
//                     thread 0      thread 1       ...    (float4 = 16 bytes each)
//
// When d_model is a multiple of 4 every row starts on a 16-byte boundary
// (cudaMalloc aligns to 256 bytes), so each thread moves a float4: a quarter of
// the memory instructions. Otherwise (d = 3, 5, 769 ...) it moves single floats.
#include "cuda/lookup.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

// T is float (scalar path) or float4 (vector path); d is the row width in T units.
template <class T>
__global__ void lookup_kernel(const T* wte, const std::int32_t* ids, T* out, std::int64_t d,
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
  // TODO: launch the kernel here, about 10 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

ANDREA_CUDA_END
