// Input validation shared by every backend. Each check runs on the host before
// anything is written (or any kernel launches) and throws andrea::InputError
// with a message that names the offending value and the bound it broke.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/tensor.hpp"
#include "core/vocab_shard.hpp"

namespace andrea::check {

/// 1 if v is an inf or a nan (all exponent bits set, IEEE 754 binary32), else 0. No branch, so
/// a loop that or-s it over a row vectorises (finite's scan uses it).
inline std::uint32_t non_finite_bit(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
}

/// Every id in [0, vocab_size); else "token id 8449 at position 2 is outside [0, 8449)".
void token_ids(TokenIds ids, std::int64_t vocab_size);

/// At least one id; else "empty sequence: at least one token id is required".
void non_empty(TokenIds ids);

/// 1 <= length <= context_length; else "sequence length 1025 exceeds context length 1024"
/// or "empty sequence: at least one token id is required".
void sequence_length(std::int64_t length, std::int64_t context_length);

/// A (rows, cols) shape; else "`what` has shape (3, 768), expected (4, 768)".
void shape(std::string_view what, std::int64_t rows, std::int64_t cols,  //
           std::int64_t expected_rows, std::int64_t expected_cols);
template <class T>
void shape(std::string_view what, MatrixView<T> m, std::int64_t rows, std::int64_t cols) {
  shape(what, m.rows(), m.cols(), rows, cols);
}

/// At least one row and one column; else "`what` is empty: shape (0, 768)".
void non_empty(std::string_view what, std::int64_t rows, std::int64_t cols);
template <class T>
void non_empty(std::string_view what, MatrixView<T> m) {
  non_empty(what, m.rows(), m.cols());
}

/// At least one element; else "`what` is empty: at least one element is required".
void non_empty(std::string_view what, std::span<const float> v);

/// A vector of `size` elements (size >= 1); else "`what` has 3 elements, expected 4"
/// or, when v is empty, "`what` is empty: at least one element is required".
void vector_size(std::string_view what, std::span<const float> v, std::int64_t size);

/// Every element finite; else "`what`[5] is nan: a finite value is required".
void finite(std::string_view what, std::span<const float> v);

/// A learning rate finite and > 0; else "learning rate -1 is not a finite number > 0".
void learning_rate(float lr);

/// Skip-gram pairs (lesson 9): centres (P >= 1), targets (P, 1 + k), every id in
/// [0, vocab_size); else "no pairs: ...", "targets has shape ...", or token_ids' message.
void pairs(TokenIds centres, TokenIdBatch targets, std::int64_t vocab_size);

// --- Everything one piece requires, in the order a reader would check it. ---------
// Every backend (reference, cuda, the student's) calls these first, so bad input
// gets the same message everywhere and nothing is written.

/// lookup: wte (V, d) non-empty, ids non-empty and in [0, V), out (n, d).
void lookup_args(ConstFloatView wte, TokenIds ids, ConstFloatView out);
/// l2_norm: v non-empty and finite.
void l2_norm_args(std::span<const float> v);
/// row_norms: m non-empty and finite, out (rows).
void row_norms_args(ConstFloatView m, std::span<const float> out);
/// dot, cosine_similarity: u and v non-empty, of one size, finite.
void dot_args(std::span<const float> u, std::span<const float> v);
/// cosine_matrix: rows (k, d) non-empty and finite, out (k, k).
void cosine_matrix_args(ConstFloatView rows, ConstFloatView out);
/// positions: wpe (T, d) non-empty, 1 <= n <= T, out (n, d).
void positions_args(ConstFloatView wpe, std::int64_t n, ConstFloatView out);
/// combine: wte (V, d) and wpe (T, d) non-empty, 1 <= n <= T, ids in [0, V), out (n, d).
void combine_args(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, ConstFloatView out);
/// combine_batch: as combine for ids (B, n), out (B * n, d).
void combine_batch_args(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids,
                        ConstFloatView out);
/// wte_backward: ids (B, n) non-empty and in [0, V), dout (B * n, d) finite, dwte (V, d) non-empty.
void wte_backward_args(TokenIdBatch ids, ConstFloatView dout, ConstFloatView dwte);
/// wpe_backward: dwpe (T, d) non-empty, 1 <= n <= T, dout (B * n, d) with B >= 1, finite.
void wpe_backward_args(ConstFloatView dout, std::int64_t n, ConstFloatView dwpe);
/// embedding_backward: dwte (V, d) and dwpe (T, d) non-empty and of one width, then
/// wte_backward_args and wpe_backward_args (dout's finiteness scanned once, not twice).
void embedding_backward_args(TokenIdBatch ids, ConstFloatView dout, ConstFloatView dwte,
                             ConstFloatView dwpe);
/// What embedding_backward_args checks but dout's finiteness, for a caller that tests dout's
/// values as it reads them (the benchmarks' fast backward). Throws where embedding_backward_args
/// does, though not always its message: that one tests dout's values before dwpe's rows.
void embedding_backward_shapes(TokenIdBatch ids, ConstFloatView dout, ConstFloatView dwte,
                               ConstFloatView dwpe);
/// sgd_step_rows: w (V, d) non-empty, dw (V, d), ids in [0, V), lr finite and > 0.
void sgd_step_rows_args(TokenIds ids, ConstFloatView dw, float lr, ConstFloatView w);
/// zero_rows: dw (V, d) non-empty, ids in [0, V).
void zero_rows_args(TokenIds ids, ConstFloatView dw);
/// count_pairs (lesson 11): vocab_size in [1, 4096], counts of vocab_size^2 entries, every id
/// < vocab_size (a negative id is a separator); else "vocab_size 0 is outside [1, 4096]",
/// "counts holds 8 entries, expected vocab_size^2 = 9" or token_ids' message.
void count_pairs_args(TokenIds ids, std::int64_t vocab_size, std::int64_t counts);
/// sinusoidal_table: d_model even and > 0, 1 <= n <= T, out (n, d_model).
void sinusoidal_table_args(std::int64_t n, std::int64_t d_model, std::int64_t context_length,
                           ConstFloatView out);
/// rope: x (n, d) non-empty with d even, positions (n) all >= 0, base finite and > 0,
/// x finite, out (n, d).
void rope_args(ConstFloatView x, std::span<const std::int32_t> positions, double base,
               ConstFloatView out);
/// pair_scores and row_gradients (lesson 9): wte, wout (V, d) non-empty and the same shape,
/// centres (P >= 1) and targets (P, 1 + k) in [0, V).
void pair_rows_args(ConstFloatView wte, ConstFloatView wout, TokenIds centres,
                    TokenIdBatch targets);
/// score_gradients: scores (P, 1 + k) non-empty and finite, grads the same shape.
void score_gradients_args(ConstFloatView scores, ConstFloatView grads);
/// row_gradients: pair_rows_args, then grads (P, 1 + k), dcentre (P, d), dtarget (P (1 + k), d).
void row_gradients_args(ConstFloatView wte, ConstFloatView wout, TokenIds centres,
                        TokenIdBatch targets, ConstFloatView grads, ConstFloatView dcentre,
                        ConstFloatView dtarget);
/// vocab_parallel_lookup: wte_shard (V_p, d) non-empty, ids (B, n) non-empty and in [0, V)
/// (the real V, not the padded one), out (B * n, d).
void vocab_parallel_lookup_args(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                                ConstFloatView out);
/// vocab_parallel_wte_backward: dwte_shard (V_p, d) non-empty, ids (B, n) non-empty and in
/// [0, V), dout (B * n, d) finite.
void vocab_parallel_backward_args(TokenIdBatch ids, ConstFloatView dout, const VocabShard& shard,
                                  ConstFloatView dwte_shard);
/// materialize: a valid config, wte (V, d_model), wpe (T, d_model).
void materialize_args(const Config& config, ConstFloatView wte, ConstFloatView wpe);

}  // namespace andrea::check
