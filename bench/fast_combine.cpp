#include "bench/fast_combine.hpp"

#include "core/check.hpp"

namespace andrea::bench {

namespace {

// x = tok + pos for one row of d floats. __restrict: the three rows never overlap
// (out is the caller's buffer, never a table), so no run-time overlap check is
// needed; blocks of 8 need no remainder loop. GCC's -O2 vectoriser refuses loops
// that need either, so this is SIMD at -O2 as well as -O3. target_clones adds an
// AVX2 copy (8 floats per add), chosen at load time on CPUs that have AVX2.
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void add_row(const float* __restrict tok, const float* __restrict pos, float* __restrict x,
             std::int64_t d) {
  std::int64_t c = 0;
  for (; c + 8 <= d; c += 8) {
    for (std::int64_t k = 0; k < 8; ++k) x[c + k] = tok[c + k] + pos[c + k];
  }
  for (; c < d; ++c) x[c] = tok[c] + pos[c];  // the last d % 8
}

// out[t] = wte[ids[t]] + wpe[t] for one sequence; inputs already validated.
void add_rows(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out) {
  for (std::int64_t t = 0; t < static_cast<std::int64_t>(ids.size()); ++t) {
    add_row(wte.row(ids[static_cast<std::size_t>(t)]).data(),  // the token's row
            wpe.row(t).data(),                                 // the position is t
            out.row(t).data(), out.cols());
  }
}

}  // namespace

void fast_combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out) {
  check::combine_args(wte, wpe, ids, out);
  add_rows(wte, wpe, ids, out);
}

void fast_combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out) {
  check::combine_batch_args(wte, wpe, ids, out);
  const std::int64_t n = ids.cols();
  for (std::int64_t b = 0; b < ids.rows(); ++b) add_rows(wte, wpe, ids.row(b), out.rows(b * n, n));
}

}  // namespace andrea::bench
