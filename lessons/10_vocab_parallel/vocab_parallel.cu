// Lesson 10_vocab_parallel: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/vocab_parallel.hpp.
// Grade it: python3 lessons/grade.py -L L10
// Lesson 10 — the masked lookup: lesson 1's gather, but a rank reads only its own rows.
//
//   grid  = B * n blocks; block q makes row q of this rank's partial output
//   block = up to 256 threads striding over the row
//
//        id = ids[q]        local = id - first
//        0 <= local < real_rows  ->  out[q] = wte_shard[local]   (this rank's row)
//        otherwise               ->  out[q] = 0                  (another rank's row)
//
// The test is done on the local index, so the kernel never reads outside the shard even
// for an id no check has seen, and padding rows (local >= real_rows) are never read.
#include "cuda/vocab_parallel.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

__global__ void vocab_parallel_lookup_kernel(const float* wte_shard, const std::int32_t* ids,
                                             float* out, std::int64_t d, std::int64_t first,
                                             std::int64_t real_rows) {
  // TODO: about 7 lines (the body of vocab_parallel_lookup_kernel).
}

}  // namespace

void vocab_parallel_lookup(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                           FloatView out) {
  // TODO(lesson 10_vocab_parallel): write the kernel and its launch; then delete the next line.
  throw NotImplemented("10_vocab_parallel/vocab_parallel.cu", "vocab_parallel_lookup");
  check::vocab_parallel_lookup_args(wte_shard, shard, ids, out);  // on the host, before any launch

  const DeviceBuffer<float> d_wte(wte_shard.flat());
  const DeviceBuffer<std::int32_t> d_ids(ids.flat());
  DeviceBuffer<float> d_out(out.size());
  const std::int64_t d = wte_shard.cols();
  const unsigned threads = threads_per_row(d);
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

ANDREA_CUDA_END
