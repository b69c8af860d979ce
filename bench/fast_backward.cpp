#include "bench/fast_backward.hpp"

#include "core/check.hpp"

namespace andrea::bench {

namespace {

// acc += g for one row of d floats: one float addition per element, so the SIMD loop
// gives the same bits as a scalar one. __restrict (a gradient row never overlaps dout)
// and blocks of 8 let GCC vectorise it at -O2 (see fast_combine.cpp's add_row for why
// both are needed); target_clones adds an AVX2 copy, chosen at load time.
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void add_into(float* __restrict acc, const float* __restrict g, std::int64_t d) {
  std::int64_t c = 0;
  for (; c + 8 <= d; c += 8) {
    for (std::int64_t k = 0; k < 8; ++k) acc[c + k] += g[c + k];
  }
  for (; c < d; ++c) acc[c] += g[c];  // the last d % 8
}

// Asks for dwte's row `row` (d floats) to be brought into cache for writing. The rows of
// dwte come in the order of the ids, which the hardware prefetcher cannot guess; the ids
// are known in advance, so the row a few positions ahead is requested while this one is
// added (GCC's __builtin_prefetch; a hint, no effect on results).
void prefetch_row(const float* row, std::int64_t d) {
  constexpr std::int64_t kLine = 64 / sizeof(float);  // floats per cache line
  for (std::int64_t c = 0; c < d; c += kLine) __builtin_prefetch(row + c, 1);
}

}  // namespace

void fast_embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte,
                             FloatView dwpe) {
  check::embedding_backward_args(ids, dout, dwte, dwpe);
  const TokenIds flat = ids.flat();
  const auto positions = static_cast<std::int64_t>(flat.size());
  constexpr std::int64_t kAhead = 2;  // 1, 2, 4 and 8 measured alike, within the noise
  for (std::int64_t p = 0; p < positions; ++p) {
    if (p + kAhead < positions) {
      prefetch_row(dwte.row(flat[static_cast<std::size_t>(p + kAhead)]).data(), dwte.cols());
    }
    add_into(dwte.row(flat[static_cast<std::size_t>(p)]).data(), dout.row(p).data(), dwte.cols());
    add_into(dwpe.row(p % ids.cols()).data(), dout.row(p).data(), dwpe.cols());
  }
}

}  // namespace andrea::bench
