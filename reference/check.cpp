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

}  // namespace andrea::check
