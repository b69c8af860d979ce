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

}  // namespace

void fast_embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte,
                             FloatView dwpe) {
  check::embedding_backward_args(ids, dout, dwte, dwpe);
  const TokenIds flat = ids.flat();
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(flat.size()); ++p) {
    add_into(dwte.row(flat[static_cast<std::size_t>(p)]).data(), dout.row(p).data(), dwte.cols());
    add_into(dwpe.row(p % ids.cols()).data(), dout.row(p).data(), dwpe.cols());
  }
}

}  // namespace andrea::bench
