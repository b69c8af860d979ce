// The embedding layer's two tables from a safetensors file, and back.
#pragma once

#include <cstdint>
#include <string>

#include "core/config.hpp"
#include "core/tensor.hpp"

namespace andrea::cli {

/// wte (V, d_model) and wpe (T, d_model) read from a file, with the names they had there.
struct EmbeddingTables {
  Matrix wte, wpe;
  std::string wte_name, wpe_name, wte_dtype, wpe_dtype;
  bool sinusoidal = false;  ///< __metadata__ "positions" is "sinusoidal": wpe is lesson 7's table
};

/// Reads the token and position tables of a safetensors file. Each is looked up
/// as the project names it or as GPT-2's Hugging Face checkpoints do:
///   wte, wte.weight, transformer.wte, transformer.wte.weight   (and the same for wpe)
/// Only those two tensors are converted to float32 (F32 as is; BF16, F16 widened).
/// Throws andrea::InputError for every malformed file (read_safetensors), when a
/// table is missing (the message lists the names tried), is not 2-D or empty, holds
/// a non-finite value (the message names the file, the tensor and the row), or
/// when wte and wpe disagree on d_model.
EmbeddingTables load_embedding_tables(const std::string& path);

/// The sizes of the loaded tables: V and d_model from wte, T from wpe.
/// name: "the file's tables"; tied_head false, model_params 0 (unknown).
Config config_of(const EmbeddingTables& tables);

/// The bytes of a safetensors file of wte and wpe (F32, names "wte" and "wpe") with
/// __metadata__ {"format": "andrea-embeddings", "config", "vocab_size", "d_model",
/// "context_length", "seed", "positions": "learned" or "sinusoidal" (wpe is then lesson 7's
/// fixed table)} (every value a string, as the format requires). Throws
/// andrea::InputError when a table holds a non-finite value (safetensors_bytes).
std::string weights_bytes(ConstFloatView wte, ConstFloatView wpe, const Config& config,
                          std::uint64_t seed, bool sinusoidal = false);

}  // namespace andrea::cli
