#include "bench/fast_backward.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/check.hpp"
#include "core/errors.hpp"
#include "reference/backward.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace andrea::bench {

namespace {

// wte_row += g and wpe_row += g for one position's row g of d floats, g read once; true if g
// holds an inf or a nan (check::non_finite_bit, or-ed lane by lane). One float addition per
// element and row, so the SIMD loop gives the reference's bits. __restrict (g never overlaps
// a gradient row, by the contract; nor do the two gradient rows: where dwte and dwpe share
// memory the reference does the work), blocks of 8 and a lane-wise flag let GCC vectorise it at -O2 (see
// fast_combine.cpp's add_row); target_clones adds an AVX2 copy, chosen at load time. One loop
// for both rows rather than a loop each: 1.22 ms instead of 1.44 at B = 8 (bench/README.md,
// "One loop for both rows").
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
bool add_into_both(float* __restrict wte_row, float* __restrict wpe_row,
                   const float* __restrict g, std::int64_t d) {
  std::uint32_t bad[8] = {};
  std::int64_t c = 0;
  for (; c + 8 <= d; c += 8) {
    for (std::int64_t k = 0; k < 8; ++k) {
      bad[k] |= check::non_finite_bit(g[c + k]);
      wte_row[c + k] += g[c + k];
      wpe_row[c + k] += g[c + k];
    }
  }
  for (; c < d; ++c) {  // the last d % 8
    bad[0] |= check::non_finite_bit(g[c]);
    wte_row[c] += g[c];
    wpe_row[c] += g[c];
  }
  std::uint32_t any = 0;
  for (const std::uint32_t b : bad) any |= b;
  return any != 0;
}

// True if the two views share an address. Compared as integers: < between pointers into
// different arrays is unspecified.
bool overlap(ConstFloatView a, ConstFloatView b) {
  const auto x = reinterpret_cast<std::uintptr_t>(a.data());
  const auto y = reinterpret_cast<std::uintptr_t>(b.data());
  return x < y + static_cast<std::uintptr_t>(b.size()) * sizeof(float) &&
         y < x + static_cast<std::uintptr_t>(a.size()) * sizeof(float);
}

// Asks for dwte's row `row` (d floats) to be brought into cache for writing. The rows of
// dwte come in the order of the ids, which the hardware prefetcher cannot guess; the ids
// are known in advance, so the row a few positions ahead is requested while this one is
// added (GCC's __builtin_prefetch; a hint, no effect on results).
void prefetch_row(const float* row, std::int64_t d) {
  constexpr std::int64_t kLine = 64 / sizeof(float);  // floats per cache line
  for (std::int64_t c = 0; c < d; c += kLine) __builtin_prefetch(row + c, 1);
}

// dst[0..d) = src[0..d) with non-temporal stores: the copy goes to memory without first
// reading dst into the cache, and evicts nothing the additions need. Where dst is not
// 16-byte aligned, or d not a multiple of 4, a plain copy.
void stream_copy(const float* src, float* dst, std::int64_t d) {
#if defined(__x86_64__)
  if (reinterpret_cast<std::uintptr_t>(dst) % 16 == 0 && d % 4 == 0) {
    for (std::int64_t c = 0; c < d; c += 4) _mm_stream_ps(dst + c, _mm_loadu_ps(src + c));
    return;
  }
#endif
  std::copy_n(src, d, dst);
}

// The gradient rows a call has changed, each saved as it was before its first addition.
// The contract says a non-finite dout is refused with nothing written; scanning dout before
// adding would read its 25 MB twice, so the scan rides along with the additions and, on a
// bad value, the rows changed so far are put back. Kept between calls (thread_local below)
// so that its pages stay mapped.
class Journal {
 public:
  // Ready for a call that changes at most `rows` rows of d floats, dwte's of V rows. Every
  // allocation happens here, before the call changes anything: a bad_alloc leaves the
  // gradients, and the journal, as they were.
  void start(std::int64_t vocab_size, std::int64_t rows, std::int64_t d) {
    if (rows * d > capacity_) {  // new float[] leaves the floats unwritten: no zeroing pass
      auto bigger = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(rows * d));
      saved_ = std::move(bigger);
      capacity_ = rows * d;
    }
    seen_.assign(static_cast<std::size_t>(vocab_size), 0);
    rows_.clear();
    rows_.reserve(static_cast<std::size_t>(rows));
    d_ = d;
  }
  // Saves dwte's row `id` before its first change in this call.
  void save_token_row(std::int32_t id, float* row) {
    auto& seen = seen_[static_cast<std::size_t>(id)];
    if (seen == 0) save(row);
    seen = 1;
  }
  void save(float* row) {
    stream_copy(row, saved_.get() + static_cast<std::int64_t>(rows_.size()) * d_, d_);
    rows_.push_back(row);
  }
  // Puts every saved row back: the gradients are as they were before the call. (The rows are
  // distinct, dwte and dwpe never sharing memory here, so the order does not matter.)
  void undo() const {
    for (std::size_t i = rows_.size(); i-- > 0;) {
      std::copy_n(saved_.get() + static_cast<std::int64_t>(i) * d_, d_, rows_[i]);
    }
  }

 private:
  std::int64_t d_ = 0;
  std::int64_t capacity_ = 0;          // floats in saved_
  std::vector<std::uint8_t> seen_;     // V flags: dwte row already saved
  std::vector<float*> rows_;           // where each saved row lives
  std::unique_ptr<float[]> saved_;     // the rows' old values, d floats each
};

}  // namespace

void fast_embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte,
                             FloatView dwpe) {
  // Where dwte and dwpe share memory, an addition into one may change the other's row, so the
  // order of every addition across the two matters: the reference keeps it (it reads dout
  // twice, but this is a rare case).
  if (overlap(dwte, dwpe)) {
    reference::embedding_backward(ids, dout, dwte, dwpe);
    return;
  }
  // Shapes and ids first, before any change. On a fault the reference's own check gives the
  // message, in its order (it tests dout's values before dwpe's shape).
  try {
    check::embedding_backward_shapes(ids, dout, dwte, dwpe);
  } catch (const InputError&) {
    check::embedding_backward_args(ids, dout, dwte, dwpe);
    throw;
  }
  thread_local Journal journal;
  journal.start(dwte.rows(), std::min(dwte.rows(), dout.rows()) + ids.cols(), dwte.cols());
  const TokenIds flat = ids.flat();
  const auto positions = static_cast<std::int64_t>(flat.size());
  const std::int64_t n = ids.cols();
  constexpr std::int64_t kAhead = 2;  // 1, 2, 4 and 8 measured alike, within the noise
  for (std::int64_t p = 0; p < positions; ++p) {
    if (p + kAhead < positions) {
      prefetch_row(dwte.row(flat[static_cast<std::size_t>(p + kAhead)]).data(), dwte.cols());
    }
    const std::int32_t id = flat[static_cast<std::size_t>(p)];
    float* wte_row = dwte.row(id).data();
    float* wpe_row = dwpe.row(p % n).data();
    journal.save_token_row(id, wte_row);
    if (p < n) journal.save(wpe_row);  // b = 0: the first change of each dwpe row
    if (add_into_both(wte_row, wpe_row, dout.row(p).data(), dwte.cols())) {
      journal.undo();
      check::embedding_backward_args(ids, dout, dwte, dwpe);  // throws the reference's message
      // Reached only if dout changed under the call (another thread writing it).
      throw std::logic_error("fast_embedding_backward: a bad value the check did not find");
    }
  }
}

}  // namespace andrea::bench
