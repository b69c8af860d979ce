// Lesson 8 — the backward pass of x[b, t] = wte[ids[b, t]] + wpe[t]:
//   dwte[v] += sum of dout[p] over the flat positions p = b * n + t with ids[p] = v
//   dwpe[t] += sum over b of dout[b * n + t]
//
// Step 1, atomic: one thread per element of dout, i = p * d + c.
//   grid = ceil(B * n * d / 256) blocks of 256 threads
//   thread i:  atomicAdd(&dwte[ids[p] * d + c], dout[i]);  atomicAdd(&dwpe[(p % n) * d + c],
//   dout[i])
// Many threads add into the same element when an id repeats; atomicAdd makes each
// read-add-write indivisible (a plain += would lose updates), but the order in which they
// land is the order the threads happen to run: the sum is right up to rounding, and its
// low bits change with that order.
//
// Step 2, deterministic: first group the positions of each id (on the host, a counting sort,
// see group_positions), then
//   grid = ceil(U * d / 256) blocks of 256 threads, U = the number of distinct ids
//   thread i = u * d + c:  acc = dwte[v][c]; for each position p of v, ascending: acc += dout[p][c]
// Each element of dwte is owned by one thread, which adds in the reference's order: the same
// float additions in the same order, so the same bits, whatever order the threads run in.
// dwpe likewise: thread i = t * d + c adds dout[b * n + t][c] for b = 0 .. B - 1.
//
// zero_rows, after a step: grid = one block per id, block <= 256 threads striding over the
// row, dw[ids[b]][c] = 0 (a repeated id writes 0 twice).
#include "cuda/backward.hpp"

#include <vector>

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::int64_t threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

// --- Step 1: the atomic kernel and its launch (embedding_backward_atomic). ----------
// dout (B * n, d); one thread per element; n the sequence length.
__global__ void backward_atomic_kernel(const float* dout, const std::int32_t* ids, float* dwte,
                                       float* dwpe, std::int64_t rows, std::int64_t n,
                                       std::int64_t d, std::int64_t vocab_size) {
  // BEGIN SOLUTION
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= rows * d) return;
  const std::int64_t p = i / d, c = i % d;
  const std::int32_t id = ids[p];
  if (id < 0 || id >= vocab_size) return;  // validated on the host; never write outside dwte
  atomicAdd(&dwte[id * d + c], dout[i]);
  atomicAdd(&dwpe[(p % n) * d + c], dout[i]);  // the position is t = p % n, never b
  // END SOLUTION
}

// Copies dwte and dwpe to the device, launches, copies them back (the kernels add into them).
void launch_atomic(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe) {
  const DeviceBuffer<float> d_dout(dout.flat());
  const DeviceBuffer<std::int32_t> d_ids(ids.flat());
  DeviceBuffer<float> d_dwte{std::span<const float>(dwte.flat())};
  DeviceBuffer<float> d_dwpe{std::span<const float>(dwpe.flat())};
  // BEGIN SOLUTION (launch)
  backward_atomic_kernel<<<blocks_for(dout.size()), kThreads>>>(
      d_dout.get(), d_ids.get(), d_dwte.get(), d_dwpe.get(), dout.rows(), ids.cols(), dout.cols(),
      dwte.rows());
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_dwte.copy_to(dwte.flat());
  d_dwpe.copy_to(dwpe.flat());
}

// --- Step 2: group the positions of each id, then one owner thread per element -----
// (wte_backward, wpe_backward, embedding_backward).

// One thread per (distinct id u, channel c): dwte[rows[u]][c] += its positions, ascending.
__global__ void wte_backward_kernel(const float* dout, const std::int32_t* rows,
                                    const std::int32_t* offsets, const std::int32_t* positions,
                                    float* dwte, std::int64_t distinct, std::int64_t d) {
  // BEGIN SOLUTION
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= distinct * d) return;
  const std::int64_t u = i / d, c = i % d;
  float* out = dwte + rows[u] * d + c;
  float acc = *out;  // the gradients accumulate: start from what the buffer holds
  for (std::int32_t k = offsets[u]; k < offsets[u + 1]; ++k) acc += dout[positions[k] * d + c];
  *out = acc;
  // END SOLUTION
}

// One thread per (t, c): dwpe[t][c] += dout[b * n + t][c], b ascending.
__global__ void wpe_backward_kernel(const float* dout, float* dwpe, std::int64_t batch,
                                    std::int64_t n, std::int64_t d) {
  // BEGIN SOLUTION
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= n * d) return;
  float acc = dwpe[i];
  for (std::int64_t b = 0; b < batch; ++b) acc += dout[b * n * d + i];  // row b * n + t
  dwpe[i] = acc;
  // END SOLUTION
}

void launch_wte(TokenIdBatch ids, const DeviceBuffer<float>& d_dout, FloatView dwte) {
  const PositionGroups g = group_positions(ids.flat(), dwte.rows());
  const DeviceBuffer<std::int32_t> d_rows(std::span<const std::int32_t>(g.rows)),
      d_offsets(std::span<const std::int32_t>(g.offsets)),
      d_positions(std::span<const std::int32_t>(g.positions));
  DeviceBuffer<float> d_dwte{std::span<const float>(dwte.flat())};
  launch_wte_backward(d_dout.get(), d_rows.get(), d_offsets.get(), d_positions.get(), d_dwte.get(),
                      static_cast<std::int64_t>(g.rows.size()), dwte.cols());
  d_dwte.copy_to(dwte.flat());
}

void launch_wpe(const DeviceBuffer<float>& d_dout, std::int64_t rows, std::int64_t n,
                FloatView dwpe) {
  DeviceBuffer<float> d_dwpe{std::span<const float>(dwpe.flat())};
  // BEGIN SOLUTION (launch)
  wpe_backward_kernel<<<blocks_for(n * dwpe.cols()), kThreads>>>(d_dout.get(), d_dwpe.get(),
                                                                 rows / n, n, dwpe.cols());
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_dwpe.copy_to(dwpe.flat());
}

__global__ void zero_rows_kernel(const std::int32_t* ids, float* dw, std::int64_t d) {
  float* row = dw + std::int64_t{ids[blockIdx.x]} * d;
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) row[c] = 0.0f;
}

}  // namespace

// Step 2's grouping (host) and kernel launch (device buffers); launch_wte above and lesson 9's
// DeviceTables both use these two.
PositionGroups group_positions(TokenIds ids, std::int64_t vocab_size) {
  // BEGIN SOLUTION
  std::vector<std::int32_t> count(static_cast<std::size_t>(vocab_size), 0);
  for (const std::int32_t v : ids) ++count[static_cast<std::size_t>(v)];
  PositionGroups g;
  std::vector<std::int32_t> start(static_cast<std::size_t>(vocab_size), 0);
  std::int32_t total = 0;
  for (std::int32_t v = 0; v < vocab_size; ++v) {  // ascending ids
    if (count[static_cast<std::size_t>(v)] == 0) continue;
    g.rows.push_back(v);
    g.offsets.push_back(total);
    start[static_cast<std::size_t>(v)] = total;
    total += count[static_cast<std::size_t>(v)];
  }
  g.offsets.push_back(total);
  g.positions.resize(ids.size());
  for (std::size_t p = 0; p < ids.size(); ++p) {  // ascending p: each group stays ascending
    g.positions[static_cast<std::size_t>(start[static_cast<std::size_t>(ids[p])]++)] =
        static_cast<std::int32_t>(p);
  }
  return g;
  // END SOLUTION
}

void launch_wte_backward(const float* dout, const std::int32_t* rows, const std::int32_t* offsets,
                         const std::int32_t* positions, float* dwte, std::int64_t distinct,
                         std::int64_t d_model) {
  if (distinct == 0) return;
  // BEGIN SOLUTION (launch)
  wte_backward_kernel<<<blocks_for(distinct * d_model), kThreads>>>(dout, rows, offsets, positions,
                                                                    dwte, distinct, d_model);
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
}

// Step 1.
void embedding_backward_atomic(TokenIdBatch ids, ConstFloatView dout, FloatView dwte,
                               FloatView dwpe) {
  check::embedding_backward_args(ids, dout, dwte, dwpe);
  launch_atomic(ids, dout, dwte, dwpe);
}

// Step 2.
void wte_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte) {
  check::wte_backward_args(ids, dout, dwte);
  launch_wte(ids, DeviceBuffer<float>(dout.flat()), dwte);
}

void wpe_backward(ConstFloatView dout, std::int64_t n, FloatView dwpe) {
  check::wpe_backward_args(dout, n, dwpe);
  launch_wpe(DeviceBuffer<float>(dout.flat()), dout.rows(), n, dwpe);
}

void embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe) {
  check::embedding_backward_args(ids, dout, dwte, dwpe);
  const DeviceBuffer<float> d_dout(dout.flat());  // uploaded once for both kernels
  launch_wte(ids, d_dout, dwte);
  launch_wpe(d_dout, dout.rows(), ids.cols(), dwpe);
}

void zero_rows(TokenIds ids, FloatView dw) {
  check::zero_rows_args(ids, dw);
  if (ids.empty()) return;
  const DeviceBuffer<std::int32_t> d_ids(ids);
  DeviceBuffer<float> d_dw(dw.flat());
  // BEGIN SOLUTION (launch)
  zero_rows_kernel<<<static_cast<unsigned>(ids.size()), threads_per_row(dw.cols())>>>(
      d_ids.get(), d_dw.get(), dw.cols());
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_dw.copy_to(dw.flat());
}

ANDREA_CUDA_END
