#include "reference/backward.hpp"

#include <vector>

#include "reference/check.hpp"

namespace andrea::reference {

// BEGIN SOLUTION
namespace {

// Inputs already validated.
void add_token_grads(TokenIdBatch ids, ConstFloatView dout, FloatView dwte) {
  const std::int64_t d = dwte.cols();
  const TokenIds flat = ids.flat();
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(flat.size()); ++p) {  // ascending p
    float* row = dwte.row(flat[static_cast<std::size_t>(p)]).data();
    const float* g = dout.row(p).data();
    for (std::int64_t c = 0; c < d; ++c) row[c] += g[c];
  }
}

void add_position_grads(ConstFloatView dout, std::int64_t n, FloatView dwpe) {
  const std::int64_t d = dwpe.cols();
  for (std::int64_t b = 0; b < dout.rows() / n; ++b) {  // ascending b
    for (std::int64_t t = 0; t < n; ++t) {
      const float* g = dout.row(b * n + t).data();
      float* row = dwpe.row(t).data();
      for (std::int64_t c = 0; c < d; ++c) row[c] += g[c];
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
  check::wte_backward_args(ids, dout, dwte);
  check::wpe_backward_args(dout, ids.cols(), dwpe);
  add_token_grads(ids, dout, dwte);
  add_position_grads(dout, ids.cols(), dwpe);
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
