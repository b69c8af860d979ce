// The one rule for integers the programs read, in every option, every --ids entry, every
// text ids file and every count of a vocabulary file: decimal digits with an optional
// leading '-' ("-0" is 0; no '+', no spaces). Real options follow the same spirit
// (apps/int_option.hpp, parse_real: what std::from_chars reads, no '+', no spaces, no hex,
// no inf or nan). A number a message prints is grouped by thousands: 268,435,456.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace andrea {

/// True when `text` is an integer as written above: -?[0-9]+.
inline bool integer_text(std::string_view text) {
  const std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
  return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
}

/// `text` (integer_text) as an Int, or nothing when it is not an integer or outside Int.
template <class Int>
std::optional<Int> to_integer(std::string_view text) {
  if (!integer_text(text)) return std::nullopt;
  if (text.find_first_not_of("-0") == std::string_view::npos) return Int{0};
  Int value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// `n` as the lessons print numbers, its digits in groups of three: 7275264 -> "7,275,264".
inline std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  const std::size_t sign = n < 0 ? 1 : 0;  // "-" stays in front of the groups
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace andrea
