#include "core/check.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace andrea::check {

void non_empty(TokenIds ids) {
  if (ids.empty()) throw InputError("empty sequence: at least one token id is required");
}

void token_ids(TokenIds ids, std::int64_t vocab_size) {
  for (std::size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] < 0 || ids[t] >= vocab_size) {
      throw InputError(
          fmt::format("token id {} at position {} is outside [0, {})", ids[t], t, vocab_size));
    }
  }
}

void sequence_length(std::int64_t length, std::int64_t context_length) {
  if (length < 1) throw InputError("empty sequence: at least one token id is required");
  if (length > context_length) {
    throw InputError(
        fmt::format("sequence length {} exceeds context length {}", length, context_length));
  }
}

void shape(std::string_view what, std::int64_t rows, std::int64_t cols, std::int64_t expected_rows,
           std::int64_t expected_cols) {
  if (rows != expected_rows || cols != expected_cols) {
    throw InputError(fmt::format("{} has shape ({}, {}), expected ({}, {})", what, rows, cols,
                                 expected_rows, expected_cols));
  }
}

void non_empty(std::string_view what, std::int64_t rows, std::int64_t cols) {
  if (rows < 1 || cols < 1) {
    throw InputError(fmt::format("{} is empty: shape ({}, {})", what, rows, cols));
  }
}

void non_empty(std::string_view what, std::span<const float> v) {
  if (v.empty())
    throw InputError(fmt::format("{} is empty: at least one element is required", what));
}

void vector_size(std::string_view what, std::span<const float> v, std::int64_t size) {
  non_empty(what, v);
  if (static_cast<std::int64_t>(v.size()) != size) {
    throw InputError(fmt::format("{} has {} elements, expected {}", what, v.size(), size));
  }
}

namespace {

// True if v[0..n) holds an inf or a nan (all exponent bits set). No early exit and blocks of
// 8 with a lane-wise accumulator, so GCC vectorises it at -O2 too (an early-exit loop is
// scalar: ~11 GB/s, the biggest part of a backward call over 25 MB of dout).
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
bool any_non_finite(const float* v, std::size_t n) {
  std::uint32_t bad[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (std::size_t k = 0; k < 8; ++k) bad[k] |= non_finite_bit(v[i + k]);
  }
  std::uint32_t any = 0;
  for (; i < n; ++i) any |= static_cast<std::uint32_t>(!std::isfinite(v[i]));
  for (const std::uint32_t b : bad) any |= b;
  return any != 0;
}

}  // namespace

void finite(std::string_view what, std::span<const float> v) {
  constexpr std::size_t kChunk = 4096;  // scan fast; on a hit, find the first bad element
  for (std::size_t start = 0; start < v.size(); start += kChunk) {
    const std::size_t end = std::min(v.size(), start + kChunk);
    if (!any_non_finite(v.data() + start, end - start)) continue;
    for (std::size_t i = start; i < end; ++i) {
      if (!std::isfinite(v[i])) {
        throw InputError(fmt::format("{}[{}] is {}: a finite value is required", what, i, v[i]));
      }
    }
  }
}

void learning_rate(float lr) {
  if (!std::isfinite(lr) || !(lr > 0.0f)) {
    throw InputError(fmt::format("learning rate {} is not a finite number > 0", lr));
  }
}

void pairs(TokenIds centres, TokenIdBatch targets, std::int64_t vocab_size) {
  if (centres.empty()) throw InputError("no pairs: at least one centre word is required");
  shape("targets", targets.rows(), targets.cols(), static_cast<std::int64_t>(centres.size()),
        targets.cols() < 1 ? 1 : targets.cols());
  token_ids(centres, vocab_size);
  token_ids(targets.flat(), vocab_size);
}

void lookup_args(ConstFloatView wte, TokenIds ids, ConstFloatView out) {
  non_empty("wte", wte);
  non_empty(ids);
  token_ids(ids, wte.rows());
  shape("out", out, static_cast<std::int64_t>(ids.size()), wte.cols());
}

void l2_norm_args(std::span<const float> v) {
  non_empty("v", v);
  finite("v", v);
}

void row_norms_args(ConstFloatView m, std::span<const float> out) {
  non_empty("m", m);
  vector_size("out", out, m.rows());
  finite("m", m.flat());
}

void dot_args(std::span<const float> u, std::span<const float> v) {
  non_empty("u", u);
  vector_size("v", v, static_cast<std::int64_t>(u.size()));
  finite("u", u);
  finite("v", v);
}

void cosine_matrix_args(ConstFloatView rows, ConstFloatView out) {
  non_empty("rows", rows);
  shape("out", out, rows.rows(), rows.rows());
  finite("rows", rows.flat());
}

void positions_args(ConstFloatView wpe, std::int64_t n, ConstFloatView out) {
  non_empty("wpe", wpe);
  sequence_length(n, wpe.rows());
  shape("out", out, n, wpe.cols());
}

namespace {

void tables(ConstFloatView wte, ConstFloatView wpe) {
  non_empty("wte", wte);
  non_empty("wpe", wpe);
  shape("wpe", wpe, wpe.rows(), wte.cols());
}

}  // namespace

void combine_args(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, ConstFloatView out) {
  tables(wte, wpe);
  sequence_length(static_cast<std::int64_t>(ids.size()), wpe.rows());
  token_ids(ids, wte.rows());
  shape("out", out, static_cast<std::int64_t>(ids.size()), wte.cols());
}

void combine_batch_args(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids,
                        ConstFloatView out) {
  tables(wte, wpe);
  non_empty("ids", ids);
  sequence_length(ids.cols(), wpe.rows());
  token_ids(ids.flat(), wte.rows());
  shape("out", out, ids.rows() * ids.cols(), wte.cols());
}

void wte_backward_args(TokenIdBatch ids, ConstFloatView dout, ConstFloatView dwte) {
  non_empty("dwte", dwte);
  non_empty("ids", ids);
  token_ids(ids.flat(), dwte.rows());
  shape("dout", dout, ids.rows() * ids.cols(), dwte.cols());
  finite("dout", dout.flat());
}

void vocab_parallel_lookup_args(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                                ConstFloatView out) {
  non_empty("wte_shard", wte_shard);
  shape("wte_shard", wte_shard, shard.rows, wte_shard.cols());
  non_empty("ids", ids);
  token_ids(ids.flat(), shard.vocab_size);
  shape("out", out, ids.rows() * ids.cols(), wte_shard.cols());
}

void vocab_parallel_backward_args(TokenIdBatch ids, ConstFloatView dout, const VocabShard& shard,
                                  ConstFloatView dwte_shard) {
  non_empty("dwte_shard", dwte_shard);
  shape("dwte_shard", dwte_shard, shard.rows, dwte_shard.cols());
  non_empty("ids", ids);
  token_ids(ids.flat(), shard.vocab_size);
  shape("dout", dout, ids.rows() * ids.cols(), dwte_shard.cols());
  finite("dout", dout.flat());
}

namespace {

// wpe_backward_args without the finiteness scan of dout.
void wpe_backward_shapes(ConstFloatView dout, std::int64_t n, ConstFloatView dwpe) {
  non_empty("dwpe", dwpe);
  sequence_length(n, dwpe.rows());
  non_empty("dout", dout);
  if (dout.rows() % n != 0) {
    throw InputError(fmt::format("dout has {} rows, not a whole number of sequences of length {}",
                                 dout.rows(), n));
  }
  shape("dout", dout, dout.rows(), dwpe.cols());
}

}  // namespace

void wpe_backward_args(ConstFloatView dout, std::int64_t n, ConstFloatView dwpe) {
  wpe_backward_shapes(dout, n, dwpe);
  finite("dout", dout.flat());
}

void embedding_backward_shapes(TokenIdBatch ids, ConstFloatView dout, ConstFloatView dwte,
                               ConstFloatView dwpe) {
  non_empty("dwte", dwte);
  non_empty("dwpe", dwpe);
  shape("dwpe", dwpe, dwpe.rows(), dwte.cols());  // names the buffer, not dout
  non_empty("ids", ids);
  token_ids(ids.flat(), dwte.rows());
  shape("dout", dout, ids.rows() * ids.cols(), dwte.cols());
  wpe_backward_shapes(dout, ids.cols(), dwpe);
}

void embedding_backward_args(TokenIdBatch ids, ConstFloatView dout, ConstFloatView dwte,
                             ConstFloatView dwpe) {
  non_empty("dwte", dwte);
  non_empty("dwpe", dwpe);
  shape("dwpe", dwpe, dwpe.rows(), dwte.cols());  // names the buffer, not dout
  wte_backward_args(ids, dout, dwte);  // scans dout for non-finite values: once is enough
  wpe_backward_shapes(dout, ids.cols(), dwpe);
}

void sgd_step_rows_args(TokenIds ids, ConstFloatView dw, float lr, ConstFloatView w) {
  non_empty("w", w);
  shape("dw", dw, w.rows(), w.cols());
  token_ids(ids, w.rows());
  learning_rate(lr);
}

void zero_rows_args(TokenIds ids, ConstFloatView dw) {
  non_empty("dw", dw);
  token_ids(ids, dw.rows());
}

namespace {

// Sin/cos and rotations work on pairs of columns.
void even_width(std::string_view what, std::int64_t d, std::string_view why) {
  if (d < 1) throw InputError(fmt::format("{} is {}: it must be > 0", what, d));
  if (d % 2 != 0) throw InputError(fmt::format("{} {} is odd: {}", what, d, why));
}

}  // namespace

void sinusoidal_table_args(std::int64_t n, std::int64_t d_model, std::int64_t context_length,
                           ConstFloatView out) {
  even_width("d_model", d_model, "sin and cos need pairs of columns");
  sequence_length(n, context_length);
  shape("out", out, n, d_model);
}

void rope_args(ConstFloatView x, std::span<const std::int32_t> positions, double base,
               ConstFloatView out) {
  non_empty("x", x);
  even_width("d", x.cols(), "RoPE rotates pairs of columns");
  if (static_cast<std::int64_t>(positions.size()) != x.rows()) {
    throw InputError(fmt::format("positions has {} entries, expected one per row of x ({})",
                                 positions.size(), x.rows()));
  }
  for (std::size_t r = 0; r < positions.size(); ++r) {
    if (positions[r] < 0) {
      throw InputError(
          fmt::format("position {} at row {} is negative: positions start at 0", positions[r], r));
    }
  }
  if (!std::isfinite(base) || !(base > 0.0)) {
    throw InputError(fmt::format("RoPE base {} is not a finite number > 0", base));
  }
  finite("x", x.flat());
  shape("out", out, x.rows(), x.cols());
}

void pair_rows_args(ConstFloatView wte, ConstFloatView wout, TokenIds centres,
                    TokenIdBatch targets) {
  non_empty("wte", wte);
  shape("wout", wout, wte.rows(), wte.cols());
  pairs(centres, targets, wte.rows());
}

void row_gradients_args(ConstFloatView wte, ConstFloatView wout, TokenIds centres,
                        TokenIdBatch targets, ConstFloatView grads, ConstFloatView dcentre,
                        ConstFloatView dtarget) {
  pair_rows_args(wte, wout, centres, targets);
  const std::int64_t P = targets.rows(), K1 = targets.cols(), d = wte.cols();
  shape("grads", grads, P, K1);
  shape("dcentre", dcentre, P, d);
  shape("dtarget", dtarget, P * K1, d);
}

void score_gradients_args(ConstFloatView scores, ConstFloatView grads) {
  non_empty("scores", scores);
  shape("grads", grads, scores.rows(), scores.cols());
  finite("scores", scores.flat());
}

void materialize_args(const Config& config, ConstFloatView wte, ConstFloatView wpe) {
  validate(config);
  shape("wte", wte, config.vocab_size, config.d_model);
  shape("wpe", wpe, config.context_length, config.d_model);
}

void count_pairs_args(TokenIds ids, std::int64_t vocab_size, std::int64_t counts) {
  if (vocab_size < 1 || vocab_size > 4096) {
    throw InputError(fmt::format("vocab_size {} is outside [1, 4096]", vocab_size));
  }
  if (counts != vocab_size * vocab_size) {
    throw InputError(fmt::format("counts holds {} entries, expected vocab_size^2 = {}", counts,
                                 vocab_size * vocab_size));
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= vocab_size) {
      throw InputError(fmt::format("token id {} at position {} is outside [0, {})", ids[i], i,
                                   vocab_size));
    }
  }
}

}  // namespace andrea::check
