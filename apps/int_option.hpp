// Integer options read as the user typed them: a value outside the option's bounds
// (or outside its type: a seed of -1 or of 2^64) is refused with the value typed,
// never wrapped or clamped as a plain conversion would.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <charconv>
#include <string>
#include <string_view>

namespace andrea::cli {

/// `text` as an Int in [lo, hi], or CLI::ValidationError "--seed -1 is outside
/// [0, 18446744073709551615]" / "--seed 'x' is not an integer" (`name` the option).
template <class Int>
Int parse_int(std::string_view text, std::string_view name, Int lo, Int hi) {
  const std::string_view digits = text.starts_with('+') ? text.substr(1) : text;
  const bool integer =
      !digits.empty() &&
      digits.find_first_not_of("0123456789", digits[0] == '-' ? 1 : 0) == std::string_view::npos &&
      digits != "-";
  if (!integer) throw CLI::ValidationError(fmt::format("{} '{}' is not an integer", name, text));
  Int value{};
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value < lo || value > hi) {
    throw CLI::ValidationError(fmt::format("{} {} is outside [{}, {}]", name, text, lo, hi));
  }
  return value;
}

/// Adds an integer option `name` ("--seed", "-k") that stores into `target` only
/// values in [lo, hi] (parse_int); the help shows target's value as the default.
template <class Int>
CLI::Option* add_int_option(CLI::App& app, const std::string& name, Int& target, Int lo, Int hi,
                            const std::string& help) {
  const std::string shown = name.substr(0, name.find(','));
  CLI::Option* option = app.add_option(
      name,
      [&target, shown, lo, hi](const CLI::results_t& results) {
        target = parse_int<Int>(results.at(0), shown, lo, hi);
        return true;
      },
      help);
  return option->type_name("INT")->expected(1)->default_str(std::to_string(target));
}

}  // namespace andrea::cli
