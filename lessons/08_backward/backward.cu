// Lesson 08_backward: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/backward.hpp.
// Grade it: python3 lessons/grade.py -L L08
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
  // TODO: about 7 lines (the body of backward_atomic_kernel).
}

// Copies dwte and dwpe to the device, launches, copies them back (the kernels add into them).
void launch_atomic(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe) {
  const DeviceBuffer<float> d_dout(dout.flat());
  const DeviceBuffer<std::int32_t> d_ids(ids.flat());
  DeviceBuffer<float> d_dwte{std::span<const float>(dwte.flat())};
  DeviceBuffer<float> d_dwpe{std::span<const float>(dwpe.flat())};
  // TODO: launch the kernel here, about 3 lines.
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
  // TODO: about 7 lines (the body of wte_backward_kernel).
}

// One thread per (t, c): dwpe[t][c] += dout[b * n + t][c], b ascending.
__global__ void wpe_backward_kernel(const float* dout, float* dwpe, std::int64_t batch,
                                    std::int64_t n, std::int64_t d) {
  // TODO: about 5 lines (the body of wpe_backward_kernel).
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
  // TODO: launch the kernel here, about 2 lines.
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
  // TODO(lesson 08_backward): write group_positions() here.
  throw NotImplemented("08_backward/backward.cu", "group_positions");
}

void launch_wte_backward(const float* dout, const std::int32_t* rows, const std::int32_t* offsets,
                         const std::int32_t* positions, float* dwte, std::int64_t distinct,
                         std::int64_t d_model) {
  // TODO(lesson 08_backward): write the kernel and its launch; then delete the next line.
  throw NotImplemented("08_backward/backward.cu", "launch_wte_backward");
  if (distinct == 0) return;
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
}

// Step 1.
void embedding_backward_atomic(TokenIdBatch ids, ConstFloatView dout, FloatView dwte,
                               FloatView dwpe) {
  // TODO(lesson 08_backward): write the kernel and its launch; then delete the next line.
  throw NotImplemented("08_backward/backward.cu", "embedding_backward_atomic");
  check::embedding_backward_args(ids, dout, dwte, dwpe);
  launch_atomic(ids, dout, dwte, dwpe);
}

// Step 2.
void wte_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte) {
  // TODO(lesson 08_backward): write the kernel and its launch; then delete the next line.
  throw NotImplemented("08_backward/backward.cu", "wte_backward");
  check::wte_backward_args(ids, dout, dwte);
  launch_wte(ids, DeviceBuffer<float>(dout.flat()), dwte);
}

void wpe_backward(ConstFloatView dout, std::int64_t n, FloatView dwpe) {
  // TODO(lesson 08_backward): write the kernel and its launch; then delete the next line.
  throw NotImplemented("08_backward/backward.cu", "wpe_backward");
  check::wpe_backward_args(dout, n, dwpe);
  launch_wpe(DeviceBuffer<float>(dout.flat()), dout.rows(), n, dwpe);
}

void embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe) {
  // TODO(lesson 08_backward): write the kernel and its launch; then delete the next line.
  throw NotImplemented("08_backward/backward.cu", "embedding_backward");
  check::embedding_backward_args(ids, dout, dwte, dwpe);
  const DeviceBuffer<float> d_dout(dout.flat());  // uploaded once for both kernels
  launch_wte(ids, d_dout, dwte);
  launch_wpe(d_dout, dout.rows(), ids.cols(), dwpe);
}

void zero_rows(TokenIds ids, FloatView dw) {
  // TODO(lesson 08_backward): write the kernel and its launch; then delete the next line.
  throw NotImplemented("08_backward/backward.cu", "zero_rows");
  check::zero_rows_args(ids, dw);
  if (ids.empty()) return;
  const DeviceBuffer<std::int32_t> d_ids(ids);
  DeviceBuffer<float> d_dw(dw.flat());
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_dw.copy_to(dw.flat());
}

ANDREA_CUDA_END
