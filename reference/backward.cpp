#include "reference/backward.hpp"

#include <algorithm>
#include <vector>

#include "core/check.hpp"

namespace andrea::reference {

// BEGIN SOLUTION
namespace {

// acc += g for one row of d floats: one float addition per element. (bench/fast_backward.cpp
// is the same addition written for the vectoriser, measured beside this loop.)
void add_into(float* acc, const float* g, std::int64_t d) {
  for (std::int64_t c = 0; c < d; ++c) acc[c] += g[c];
}

// dwte[ids[p]] += dout[p], p = b * n + t ascending; inputs already validated.
void add_token_grads(TokenIdBatch ids, ConstFloatView dout, FloatView dwte) {
  const TokenIds flat = ids.flat();
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(flat.size()); ++p) {
    add_into(dwte.row(flat[static_cast<std::size_t>(p)]).data(), dout.row(p).data(), dwte.cols());
  }
}

// dwpe[t] += dout[b * n + t], b ascending.
void add_position_grads(ConstFloatView dout, std::int64_t n, FloatView dwpe) {
  for (std::int64_t b = 0; b < dout.rows() / n; ++b) {
    for (std::int64_t t = 0; t < n; ++t) {
      add_into(dwpe.row(t).data(), dout.row(b * n + t).data(), dwpe.cols());
    }
  }
}

}  // namespace
// END SOLUTION

void wte_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte) {
  // BEGIN SOLUTION
  check::wte_backward_args(ids, dout, dwte);
  add_token_grads(ids, dout, dwte);
  // END SOLUTION
}

void wpe_backward(ConstFloatView dout, std::int64_t n, FloatView dwpe) {
  // BEGIN SOLUTION
  check::wpe_backward_args(dout, n, dwpe);
  add_position_grads(dout, n, dwpe);
  // END SOLUTION
}

void embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe) {
  // BEGIN SOLUTION
  check::embedding_backward_args(ids, dout, dwte, dwpe);
  // One pass over dout: row p goes to dwte[ids[p]] and to dwpe[p % n]. p ascending keeps
  // both contracts (ascending p per dwte row, ascending b per dwpe row) and reads dout once.
  const TokenIds flat = ids.flat();
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(flat.size()); ++p) {
    add_into(dwte.row(flat[static_cast<std::size_t>(p)]).data(), dout.row(p).data(), dwte.cols());
    add_into(dwpe.row(p % ids.cols()).data(), dout.row(p).data(), dwpe.cols());
  }
  // END SOLUTION
}

void zero_rows(TokenIds ids, FloatView dw) {
  // BEGIN SOLUTION
  check::zero_rows_args(ids, dw);
  for (const std::int32_t v : ids) std::fill_n(dw.row(v).data(), dw.cols(), 0.0f);
  // END SOLUTION
}

void sgd_step_rows(TokenIds ids, ConstFloatView dw, float lr, FloatView w) {
  // BEGIN SOLUTION
  check::sgd_step_rows_args(ids, dw, lr, w);
  std::vector<bool> done(static_cast<std::size_t>(w.rows()), false);
  for (const std::int32_t v : ids) {
    if (done[static_cast<std::size_t>(v)]) continue;  // each occurring row once
    done[static_cast<std::size_t>(v)] = true;
    float* row = w.row(v).data();
    const float* g = dw.row(v).data();
    for (std::int64_t c = 0; c < w.cols(); ++c) row[c] -= lr * g[c];
  }
  // END SOLUTION
}

}  // namespace andrea::reference
