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
  // BEGIN SOLUTION
  const std::int64_t q = blockIdx.x;
  const std::int64_t local = ids[q] - first;  // this rank's row, if it owns the id
  const bool mine = local >= 0 && local < real_rows;
  float* dst = out + q * d;
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) {
    dst[c] = mine ? wte_shard[local * d + c] : 0.0f;  // 64-bit offsets
  }
  // END SOLUTION
}

}  // namespace

void vocab_parallel_lookup(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                           FloatView out) {
  check::vocab_parallel_lookup_args(wte_shard, shard, ids, out);  // on the host, before any launch

  const DeviceBuffer<float> d_wte(wte_shard.flat());
  const DeviceBuffer<std::int32_t> d_ids(ids.flat());
  DeviceBuffer<float> d_out(out.size());
  const std::int64_t d = wte_shard.cols();
  const unsigned threads = threads_per_row(d);
  // BEGIN SOLUTION (launch)
  vocab_parallel_lookup_kernel<<<static_cast<unsigned>(ids.size()), threads>>>(
      d_wte.get(), d_ids.get(), d_out.get(), d, shard.first, shard.real_rows);
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out.flat());
}

ANDREA_CUDA_END
