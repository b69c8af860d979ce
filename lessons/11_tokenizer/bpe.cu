// Lesson 11_tokenizer: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/bpe.hpp.
// Grade it: python3 lessons/grade.py -L L11
// Lesson 11 — the adjacent-pair histogram of BPE training, on the device.
//   counts[ids[i] * V + ids[i + 1]] += 1 for every i < n - 1 (a negative id separates chunks)
//
// Step 1, atomic: grid = ceil((n - 1) / 256) blocks of 256 threads, one thread per position.
// Many threads hit the same bin (" t" and "th" are everywhere in English): atomicAdd makes each
// increment indivisible, and since integer addition is associative and commutative the counts
// are exact in any order. But every increment is a trip to global memory, and a popular bin
// serialises all the threads that hit it.
//
// Step 2, privatised (a shared-memory histogram per block, as in the CUDA samples' histogram
// and Kirk & Hwu, "Programming Massively Parallel Processors", chapter on histograms):
//   grid = (ceil((n - 1) / 4096) slices, ceil(V * V / 4096) tiles), block = 256 threads
//   1. the block zeroes its tile of 4,096 bins in shared memory (16 KiB);   __syncthreads()
//   2. each thread strides over the slice's 4,096 positions and, for a pair whose bin lies
//      in the tile, does atomicAdd on the shared bin;                      __syncthreads()
//   3. each thread strides over the tile and adds each non-zero bin to counts (global atomic).
// The global atomics drop from one per position to at most one per bin and block. Each tile's
// block reads its whole slice: worth it while V * V fits in a few tiles (V <= 64: one).
#include "cuda/bpe.hpp"

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

constexpr unsigned kThreads = 256;
constexpr std::int64_t kSlice = 4096;  // positions per block (step 2)
constexpr int kTileBins = 4096;        // bins of a block's shared histogram (step 2)

// --- Step 1: one thread per position, a global atomic per pair. --------------------
__global__ void count_pairs_atomic_kernel(const std::int32_t* ids, std::int64_t n,
                                          std::int64_t vocab_size, std::int32_t* counts) {
  // TODO: about 5 lines (the body of count_pairs_atomic_kernel).
}

// --- Step 2: a histogram per block in shared memory, over one tile of bins. --------
__global__ void count_pairs_shared_kernel(const std::int32_t* ids, std::int64_t n,
                                          std::int64_t vocab_size, std::int32_t* counts) {
  // TODO: about 17 lines (the body of count_pairs_shared_kernel).
}

}  // namespace

void count_pairs_atomic(TokenIds ids, std::int64_t vocab_size, std::span<std::int32_t> counts) {
  // TODO(lesson 11_tokenizer): write the kernel and its launch; then delete the next line.
  throw NotImplemented("11_tokenizer/bpe.cu", "count_pairs_atomic");
  check::count_pairs_args(ids, vocab_size, static_cast<std::int64_t>(counts.size()));
  const auto n = static_cast<std::int64_t>(ids.size());
  if (n < 2) return;
  const DeviceBuffer<std::int32_t> d_ids(ids);
  DeviceBuffer<std::int32_t> d_counts{std::span<const std::int32_t>(counts)};
  // TODO: launch the kernel here, about 2 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_counts.copy_to(counts);
}

void count_pairs(TokenIds ids, std::int64_t vocab_size, std::span<std::int32_t> counts) {
  // TODO(lesson 11_tokenizer): write the kernel and its launch; then delete the next line.
  throw NotImplemented("11_tokenizer/bpe.cu", "count_pairs");
  check::count_pairs_args(ids, vocab_size, static_cast<std::int64_t>(counts.size()));
  const auto n = static_cast<std::int64_t>(ids.size());
  if (n < 2) return;
  const DeviceBuffer<std::int32_t> d_ids(ids);
  DeviceBuffer<std::int32_t> d_counts{std::span<const std::int32_t>(counts)};
  // TODO: launch the kernel here, about 3 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  d_counts.copy_to(counts);
}

ANDREA_CUDA_END
