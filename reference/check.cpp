#include "reference/check.hpp"

#include <cmath>
#include <fmt/format.h>

namespace andrea::check {

void not_empty(TokenIds ids) {
  if (ids.empty()) throw InputError("empty sequence: at least one token id is required");
}

void token_ids(TokenIds ids, std::int64_t vocab_size) {
  for (std::size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] < 0 || ids[t] >= vocab_size) {
      throw InputError(fmt::format("token id {} at position {} is outside [0, {})", ids[t], t,
                                   vocab_size));
    }
  }
}

void sequence_length(std::int64_t length, std::int64_t context_length) {
  if (length < 1) throw InputError("empty sequence: at least one token id is required");
  if (length > context_length) {
    throw InputError(fmt::format("sequence length {} exceeds context length {}", length,
                                 context_length));
  }
}

void shape(std::string_view what, std::int64_t rows, std::int64_t cols,
           std::int64_t expected_rows, std::int64_t expected_cols) {
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

void vector_size(std::string_view what, std::span<const float> v, std::int64_t size) {
  if (v.empty()) throw InputError(fmt::format("{} is empty: at least one element is required", what));
  if (static_cast<std::int64_t>(v.size()) != size) {
    throw InputError(fmt::format("{} has {} elements, expected {}", what, v.size(), size));
  }
}

void finite(std::string_view what, std::span<const float> v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      throw InputError(fmt::format("{}[{}] is {}: a finite value is required", what, i, v[i]));
    }
  }
}

void lookup_args(ConstFloatView wte, TokenIds ids, ConstFloatView out) {
  non_empty("wte", wte);
  not_empty(ids);
  token_ids(ids, wte.rows());
  shape("out", out, static_cast<std::int64_t>(ids.size()), wte.cols());
}

void l2_norm_args(std::span<const float> v) {
  vector_size("v", v, static_cast<std::int64_t>(v.size()));
  finite("v", v);
}

void row_norms_args(ConstFloatView m, std::span<const float> out) {
  non_empty("m", m);
  shape("out", static_cast<std::int64_t>(out.size()), 1, m.rows(), 1);
  finite("m", m.flat());
}

void dot_args(std::span<const float> u, std::span<const float> v) {
  vector_size("u", u, static_cast<std::int64_t>(u.size()));
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

void vocab_parallel_lookup_args(ConstFloatView wte_shard, const VocabShard& shard,
                                TokenIdBatch ids, ConstFloatView out) {
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

void wpe_backward_args(ConstFloatView dout, std::int64_t n, ConstFloatView dwpe) {
  non_empty("dwpe", dwpe);
  sequence_length(n, dwpe.rows());
  non_empty("dout", dout);
  if (dout.rows() % n != 0) {
    throw InputError(fmt::format("dout has {} rows, not a whole number of sequences of length {}",
                                 dout.rows(), n));
  }
  shape("dout", dout, dout.rows(), dwpe.cols());
  finite("dout", dout.flat());
}

void sgd_step_rows_args(TokenIds ids, ConstFloatView dw, float lr, ConstFloatView w) {
  non_empty("w", w);
  shape("dw", dw, w.rows(), w.cols());
  token_ids(ids, w.rows());
  if (!std::isfinite(lr) || !(lr > 0.0f)) {
    throw InputError(fmt::format("learning rate {} is not a finite number > 0", lr));
  }
}

void materialize_args(const Config& config, ConstFloatView wte, ConstFloatView wpe) {
  validate(config);
  shape("wte", wte, config.vocab_size, config.d_model);
  shape("wpe", wpe, config.context_length, config.d_model);
}

}  // namespace andrea::check
