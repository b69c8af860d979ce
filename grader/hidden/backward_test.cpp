// Lesson 8 — the backward pass, hidden tests: ids, gradients dout and prefilled gradient
// buffers drawn from the instructor's seed, at ANDREA-120M's shapes (B = 2, n = T = 1024) and
// awkward ones. The deterministic backward sums in ascending position (the contract), so its
// bits must be the solution's; the atomic kernel (CUDA) must agree within the rounding of its
// additions in another order; zero_rows too, and in C++ the sparse SGD step.
#include <cmath>

#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/backward.hpp"
#else
#include "reference/backward.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

struct Case {
  std::int64_t vocab_size, context_length, d_model, batch, n;
  std::vector<std::int32_t> ids;
  Matrix dout, dwte,
      dwpe;  // dwte, dwpe: what the buffers hold before the call (gradients accumulate)
  TokenIdBatch batch_ids() const { return {ids.data(), batch, n}; }
};

Case draw_case(Draw& draw, std::int64_t V, std::int64_t T, std::int64_t d, std::int64_t batch,
               std::int64_t n) {
  Case c{V, T, d, batch, n, draw.ids(batch * n, V), draw.table(batch * n, d), {}, {}};
  c.dwte = draw.table_with_specials(V, d);
  c.dwpe = draw.table_with_specials(T, d);
  return c;
}

std::string shape_of(const Case& c) {
  return "(V " + std::to_string(c.vocab_size) + ", T " + std::to_string(c.context_length) +
         ", d_model " + std::to_string(c.d_model) + ", B " + std::to_string(c.batch) + ", n " +
         std::to_string(c.n) + ")";
}

void expect_embedding_backward(const Case& c) {
  Matrix dwte = c.dwte, dwpe = c.dwpe, expected_wte = c.dwte, expected_wpe = c.dwpe;
  backend::embedding_backward(c.batch_ids(), c.dout, dwte, dwpe);
  solution::embedding_backward(c.batch_ids(), c.dout, expected_wte, expected_wpe);
  EXPECT_TRUE(same_bits("embedding_backward dwte " + shape_of(c), dwte, expected_wte));
  EXPECT_TRUE(same_bits("embedding_backward dwpe " + shape_of(c), dwpe, expected_wpe));
}

void expect_pieces(const Case& c) {
  Matrix dwte = c.dwte, dwpe = c.dwpe, expected_wte = c.dwte, expected_wpe = c.dwpe;
  backend::wte_backward(c.batch_ids(), c.dout, dwte);
  solution::wte_backward(c.batch_ids(), c.dout, expected_wte);
  EXPECT_TRUE(same_bits("wte_backward dwte " + shape_of(c), dwte, expected_wte));
  backend::wpe_backward(c.dout, c.n, dwpe);
  solution::wpe_backward(c.dout, c.n, expected_wpe);
  EXPECT_TRUE(same_bits("wpe_backward dwpe " + shape_of(c), dwpe, expected_wpe));
}

TEST(HiddenBackward, Andrea120mShapes) {
  Draw draw("backward/andrea-120m");
  expect_embedding_backward(draw_case(draw, 8449, 1024, 768, 2, 1024));
}

TEST(HiddenBackward, AwkwardShapes) {
  Draw draw("backward/awkward");
  for (int i = 0; i < 3; ++i) {
    const std::int64_t V = draw.between(1, 2000), T = draw.not_multiple_of_32(1, 300),
                       d = draw.odd(1, 301);
    const std::int64_t batch = draw.between(1, 5), n = draw.between(1, T);
    const Case c = draw_case(draw, V, T, d, batch, n);
    expect_embedding_backward(c);
    expect_pieces(c);
  }
}

TEST(HiddenBackward, NonFiniteDoutIsRefusedAndNothingWritten) {
  Draw draw("backward/bad");
  const std::int64_t V = draw.between(2, 300), T = draw.between(2, 100), d = draw.odd(1, 99);
  const std::int64_t batch = draw.between(1, 4), n = draw.between(1, T);
  Case c = draw_case(draw, V, T, d, batch, n);
  c.dout.view().data()[draw.between(0, c.dout.view().size() - 1)] =
      draw.between(0, 1) ? NAN : -INFINITY;
  Matrix dwte = c.dwte, dwpe = c.dwpe, scratch_wte = c.dwte, scratch_wpe = c.dwpe;
  EXPECT_TRUE(same_error(
      "embedding_backward of a dout holding a non-finite value",
      [&] { backend::embedding_backward(c.batch_ids(), c.dout, dwte, dwpe); },
      [&] { solution::embedding_backward(c.batch_ids(), c.dout, scratch_wte, scratch_wpe); }));
  EXPECT_TRUE(same_bits("dwte after a refused call", dwte, c.dwte));
  EXPECT_TRUE(same_bits("dwpe after a refused call", dwpe, c.dwpe));
}

#if defined(ANDREA_BACKEND_CUDA)
// The atomic kernel adds in the order the threads arrive. Any order of the k additions into
// one element is within k u S of the exact sum (u = 2^-24, S = the sum of |terms|, the
// buffer's value included): the two results may differ by twice that.
std::vector<double> order_allowance(const Case& c, bool token) {
  const ConstFloatView start = token ? c.dwte.view() : c.dwpe.view();
  std::vector<double> terms(static_cast<std::size_t>(start.rows()), 0.0),
      sum(static_cast<std::size_t>(start.size()));
  for (std::int64_t i = 0; i < start.size(); ++i)
    sum[static_cast<std::size_t>(i)] = std::abs(start.data()[i]);
  for (std::int64_t p = 0; p < c.batch * c.n; ++p) {
    const std::int64_t row = token ? c.ids[static_cast<std::size_t>(p)] : p % c.n;
    terms[static_cast<std::size_t>(row)] += 1.0;
    for (std::int64_t col = 0; col < c.d_model; ++col)
      sum[static_cast<std::size_t>(row * c.d_model + col)] += std::abs(c.dout(p, col));
  }
  for (std::size_t i = 0; i < sum.size(); ++i)
    sum[i] *= 2.0 * terms[i / static_cast<std::size_t>(c.d_model)] * 0x1p-24;
  return sum;
}

void expect_atomic(const Case& c) {
  Matrix dwte = c.dwte, dwpe = c.dwpe, expected_wte = c.dwte, expected_wpe = c.dwpe;
  backend::embedding_backward_atomic(c.batch_ids(), c.dout, dwte, dwpe);
  solution::embedding_backward(c.batch_ids(), c.dout, expected_wte, expected_wpe);
  const Tolerance tol{1e-6, 1e-6};  // tests/backward_test.cpp, GoldenTinyBatchWithinRounding
  EXPECT_TRUE(matches("embedding_backward_atomic dwte " + shape_of(c), dwte, expected_wte, tol,
                      order_allowance(c, true)));
  EXPECT_TRUE(matches("embedding_backward_atomic dwpe " + shape_of(c), dwpe, expected_wpe, tol,
                      order_allowance(c, false)));
}

TEST(HiddenBackward, AtomicAtAndrea120mAndAwkwardShapes) {
  Draw draw("backward/atomic");
  expect_atomic(draw_case(draw, 8449, 1024, 768, 2, 1024));
  const std::int64_t V = draw.between(1, 2000), T = draw.not_multiple_of_32(1, 300),
                     d = draw.odd(1, 301);
  const std::int64_t batch = draw.between(1, 5), n = draw.between(1, T);
  expect_atomic(draw_case(draw, V, T, d, batch, n));
}
#else
// The sparse SGD step (C++ only): rows of the batch's ids change, bit for bit as the
// solution's, every other row keeps its bits.
TEST(HiddenBackward, SgdStep) {
  Draw draw("backward/sgd");
  struct Shape {
    std::int64_t vocab_size, d_model, ids;
  };
  const Shape shapes[] = {
      {8449, 768, 2048},
      {draw.between(1, 2000), draw.odd(1, 301), draw.not_multiple_of_32(1, 500)}};
  for (const Shape& s : shapes) {
    const std::vector<std::int32_t> ids = draw.ids(s.ids, s.vocab_size);
    const Matrix dw = draw.table(s.vocab_size, s.d_model),
                 w = draw.table_with_specials(s.vocab_size, s.d_model);
    const float lr =
        static_cast<float>(std::pow(10.0, static_cast<double>(draw.between(-400, 0)) / 100.0));
    Matrix got = w, expected = w;
    backend::sgd_step_rows(ids, dw, lr, got);
    solution::sgd_step_rows(ids, dw, lr, expected);
    EXPECT_TRUE(same_bits("w after sgd_step_rows (V " + std::to_string(s.vocab_size) +
                              ", d_model " + std::to_string(s.d_model) + ", " +
                              std::to_string(s.ids) + " ids, lr " + std::to_string(lr) + ")",
                          got, expected));
  }
}
#endif

// zero_rows on every backend: the rows of the ids become zero, every other row keeps its bits.
TEST(HiddenBackward, ZeroRows) {
  Draw draw("backward/zero-rows");
  struct Shape {
    std::int64_t vocab_size, d_model, ids;
  };
  const Shape shapes[] = {
      {8449, 768, 2048},
      {draw.between(1, 2000), draw.odd(1, 301), draw.not_multiple_of_32(1, 500)}};
  for (const Shape& s : shapes) {
    const std::vector<std::int32_t> ids = draw.ids(s.ids, s.vocab_size);
    const Matrix dw = draw.table_with_specials(s.vocab_size, s.d_model);
    Matrix got = dw, expected = dw;
    backend::zero_rows(ids, got);
    solution::zero_rows(ids, expected);
    EXPECT_TRUE(same_bits("dw after zero_rows (V " + std::to_string(s.vocab_size) + ", d_model " +
                              std::to_string(s.d_model) + ", " + std::to_string(s.ids) + " ids)",
                          got, expected));
  }
}

}  // namespace
