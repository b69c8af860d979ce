#include "core/config.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace andrea {

void validate(const Config& config) {
  const auto positive = [&](std::string_view field, std::int64_t value) {
    if (value < 1) {
      throw InputError(
          fmt::format("config {}: {} = {} must be at least 1", config.name, field, value));
    }
  };
  positive("vocab_size", config.vocab_size);
  positive("d_model", config.d_model);
  positive("context_length", config.context_length);
}

const Config& config_by_name(std::string_view name) {
  for (const Config& preset : presets) {
    if (preset.name == name) return preset;
  }
  throw InputError(
      fmt::format("unknown config '{}': known configs are andrea-120m, gpt2-124m", name));
}

}  // namespace andrea
