// Numbers read as the user typed them, by the one rule of core/numbers.hpp. A value
// outside the option's bounds (or outside its type: a seed of -1 or of 2^64) is refused
// with the value typed, never wrapped or clamped as a plain conversion would.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "core/numbers.hpp"

namespace andrea::cli {

/// `text` as an Int in [lo, hi], or CLI::ValidationError "--seed -1 is outside
/// [0, 18446744073709551615]" / "--seed 'x' is not an integer" (`name` the option).
template <class Int>
Int parse_int(std::string_view text, std::string_view name, Int lo, Int hi) {
  if (!integer_text(text)) {
    throw CLI::ValidationError(fmt::format("{} '{}' is not an integer", name, text));
  }
  const std::optional<Int> value = to_integer<Int>(text);
  if (!value || *value < lo || *value > hi) {
    throw CLI::ValidationError(fmt::format("{} {} is outside [{}, {}]", name, text, lo, hi));
  }
  return *value;
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

/// `text` as a finite double in [lo, hi] (lo may be 0; any other value must be a normal
/// number, never a subnormal that has lost its digits), or CLI::ValidationError
/// "--lr 5e-324 is outside [1e-06, 10]" / "--lr 'x' is not a number".
inline double parse_real(std::string_view text, std::string_view name, double lo, double hi) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool number = !text.empty() && error != std::errc::invalid_argument &&
                      end == text.data() + text.size() && text.find_first_of("xXnN") == text.npos;
  if (!number) throw CLI::ValidationError(fmt::format("{} '{}' is not a number", name, text));
  const bool usable = value == 0 || std::isnormal(value);
  if (error != std::errc() || !usable || !(value >= lo && value <= hi)) {
    throw CLI::ValidationError(fmt::format("{} {} is outside [{}, {}]", name, text, lo, hi));
  }
  return value;
}

/// Adds a real-number option `name` ("--lr") that stores into `target` only values in
/// [lo, hi] (parse_real); the help shows the bounds and target's value as the default.
inline CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& target,
                                    double lo, double hi, const std::string& help) {
  CLI::Option* option = app.add_option(
      name,
      [&target, name, lo, hi](const CLI::results_t& results) {
        target = parse_real(results.at(0), name, lo, hi);
        return true;
      },
      fmt::format("{} [{}, {}]", help, lo, hi));
  return option->type_name("FLOAT")->expected(1)->default_str(fmt::format("{}", target));
}

}  // namespace andrea::cli
