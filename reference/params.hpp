// Lesson 6 — parameter count: where the embedding layer's numbers live.
#pragma once

#include <cstdint>

#include "core/config.hpp"
#include "core/tensor.hpp"

namespace andrea {

/// Parameters of the token table wte: V * d_model.
constexpr std::int64_t token_table_params(const Config& c) { return c.vocab_size * c.d_model; }
/// Parameters of the position table wpe: T * d_model.
constexpr std::int64_t position_table_params(const Config& c) {
  return c.context_length * c.d_model;
}
/// Parameters of the embedding layer: V * d_model + T * d_model.
constexpr std::int64_t embedding_params(const Config& c) {
  return token_table_params(c) + position_table_params(c);
}
/// What the output head (d_model -> V logits) adds: V * d_model when untied,
/// 0 when tied to wte (Press & Wolf 2017; GPT-2 shares the matrix).
constexpr std::int64_t head_params(const Config& c) {
  return c.tied_head ? 0 : token_table_params(c);
}

static_assert(token_table_params(andrea_120m) == 6'488'832);
static_assert(position_table_params(andrea_120m) == 786'432);
static_assert(embedding_params(andrea_120m) == 7'275'264);
static_assert(head_params(gpt2_124m) == 0);

/// What materialize() wrote into the caller's tables, counted while writing.
struct ParameterReport {
  std::int64_t token_params = 0;     ///< elements of wte written
  std::int64_t position_params = 0;  ///< elements of wpe written
  std::int64_t total = 0;            ///< token_params + position_params
  std::int64_t bytes = 0;            ///< bytes holding them (float32: 4 each)
};

}  // namespace andrea

namespace andrea::reference {

/// Fills wte (V, d_model) and wpe (T, d_model) with the shared init
/// (andrea::init_value, N(0,1)/sqrt(d_model)) and reports the elements it wrote,
/// counted while writing, not from the formula.
/// Throws andrea::InputError, writing nothing, when the config is invalid or a
/// table's shape does not match it.
ParameterReport materialize(const Config& config, std::uint64_t seed, FloatView wte, FloatView wpe);

}  // namespace andrea::reference
