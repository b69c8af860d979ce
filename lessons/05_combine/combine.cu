// Lesson 05_combine: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/combine.hpp.
// Grade it: python3 lessons/grade.py -L L05
// Lesson 5 — combine: the whole embedding layer in one kernel,
//   x[b, t] = wte[ids[b, t]] + wpe[t]
// fused so that x is written once (two separate passes would write and re-read it).
// Rung 1 of 2, the plain kernel: one float per thread per step. Rung 2 (float4): "Going
// further" in lessons/05_combine/README.md.
//
//   grid  = B * n blocks; block r makes output row r = b * n + t
//   block = up to 256 threads striding over the row's d_model floats, as in lesson 1:
//           thread i adds columns i, i + 256, ... (neighbouring threads, neighbouring floats)
//
//        ids (B, n)         row r  ->  b = r / n, t = r % n
//        out (B * n, d)     out[r] = wte[ids[r]] + wpe[t]     (t, never b)
#include "cuda/combine.hpp"

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

// wte (vocab_size, d), wpe (>= n, d), ids (gridDim.x = B * n), out (B * n, d); n the sequence
// length.
__global__ void combine_kernel(const float* wte, const float* wpe, const std::int32_t* ids,
                               float* out, std::int64_t n, std::int64_t d,
                               std::int64_t vocab_size) {
  // TODO: about 8 lines (the body of combine_kernel).
}

// ids (B, n) validated; out (B * n, d_model).
void launch_combine(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out) {
  const DeviceBuffer<float> d_wte(wte.flat()), d_wpe(wpe.flat());
  const DeviceBuffer<std::int32_t> d_ids(ids.flat());
  DeviceBuffer<float> d_out(out.size());
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

}  // namespace

void combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out) {
  // TODO(lesson 05_combine): write the kernel and its launch; then delete the next line.
  throw NotImplemented("05_combine/combine.cu", "combine");
  check::combine_args(wte, wpe, ids, out);
  launch_combine(wte, wpe, TokenIdBatch(ids.data(), 1, static_cast<std::int64_t>(ids.size())), out);
}

void combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out) {
  // TODO(lesson 05_combine): write the kernel and its launch; then delete the next line.
  throw NotImplemented("05_combine/combine.cu", "combine_batch");
  check::combine_batch_args(wte, wpe, ids, out);
  launch_combine(wte, wpe, ids, out);
}

ANDREA_CUDA_END
