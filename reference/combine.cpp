#include "reference/combine.hpp"

#include "reference/check.hpp"

namespace andrea::reference {

// BEGIN SOLUTION
namespace {

void check_tables(ConstFloatView wte, ConstFloatView wpe) {
  check::non_empty("wte", wte);
  check::non_empty("wpe", wpe);
  check::shape("wpe", wpe, wpe.rows(), wte.cols());
}

// out[t] = wte[ids[t]] + wpe[t] for one sequence; inputs already validated.
void add_rows(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out) {
  for (std::int64_t t = 0; t < static_cast<std::int64_t>(ids.size()); ++t) {
    const auto tok = wte.row(ids[static_cast<std::size_t>(t)]);
    const auto pos = wpe.row(t);  // the position is t
    const auto x = out.row(t);
    for (std::size_t c = 0; c < x.size(); ++c) x[c] = tok[c] + pos[c];
  }
}

}  // namespace
// END SOLUTION

void combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out) {
  // BEGIN SOLUTION
  check_tables(wte, wpe);
  check::sequence_length(static_cast<std::int64_t>(ids.size()), wpe.rows());
  check::token_ids(ids, wte.rows());
  check::shape("out", out, static_cast<std::int64_t>(ids.size()), wte.cols());
  add_rows(wte, wpe, ids, out);
  // END SOLUTION
}

void combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out) {
  // BEGIN SOLUTION
  check_tables(wte, wpe);
  check::non_empty("ids", ids);
  check::sequence_length(ids.cols(), wpe.rows());
  check::token_ids(ids.flat(), wte.rows());
  check::shape("out", out, ids.rows() * ids.cols(), wte.cols());
  const std::int64_t n = ids.cols();
  for (std::int64_t b = 0; b < ids.rows(); ++b) {
    add_rows(wte, wpe, ids.row(b), {out.data() + b * n * out.cols(), n, out.cols()});
  }
  // END SOLUTION
}

}  // namespace andrea::reference
