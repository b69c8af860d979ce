// The model configuration: the three numbers that size the embedding layer.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace andrea {

/// Sizes of the embedding layer.
///   vocab_size     V  rows of the token table wte (V, d_model)
///   d_model        d  width of every embedding vector
///   context_length T  rows of the position table wpe (T, d_model); the block size
///   tied_head         true when the output head reuses wte (GPT-2), false when it
///                     is a separate (V, d_model) matrix (ANDREA)
///   model_params      the whole model's size as its name gives it (for shares
///                     only; 0 when unknown)
struct Config {
  std::string_view name;
  std::int64_t vocab_size;
  std::int64_t d_model;
  std::int64_t context_length;
  bool tied_head;
  std::int64_t model_params = 0;
};

/// ANDREA-120M: byte-level BPE vocabulary of 8,449 tokens, untied head, ~120M in all.
inline constexpr Config andrea_120m{"andrea-120m", 8449, 768, 1024, false, 120'000'000};
/// GPT-2 124M (Radford et al. 2019; nanoGPT `GPTConfig`): tied head, 124,439,808 in all.
inline constexpr Config gpt2_124m{"gpt2-124m", 50257, 768, 1024, true, 124'439'808};

inline constexpr Config presets[] = {andrea_120m, gpt2_124m};

/// Throws andrea::InputError when V, d_model or T is not positive.
void validate(const Config& config);

/// The preset called `name` ("andrea-120m", "gpt2-124m").
/// Throws andrea::InputError naming the known presets when there is none.
const Config& config_by_name(std::string_view name);

}  // namespace andrea
