#include "grader/hidden/hidden.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>

namespace andrea::hidden {

namespace {

// The seed's text: the environment variable ANDREA_HIDDEN_SEED, else the first line of the file
// ANDREA_HIDDEN_SEED_FILE names (ctest's way: the build names the file, not the seed, so that
// a copy of the build a submission compiles in holds no seed once the file is gone).
std::optional<std::string> seed_text() {
  if (const char* text = std::getenv("ANDREA_HIDDEN_SEED")) {
    return std::string(text);
  }
  const char* path = std::getenv("ANDREA_HIDDEN_SEED_FILE");
  std::ifstream file(path ? path : "");
  std::string line;
  if (!path || !std::getline(file, line)) {
    return std::nullopt;
  }
  return line;
}

}  // namespace

std::uint64_t seed() {
  const std::optional<std::string> text = seed_text();
  std::uint64_t value = 0;
  const std::string_view s = text ? std::string_view(*text) : "";
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || error != std::errc() || end != s.data() + s.size()) {
    throw std::runtime_error("ANDREA_HIDDEN_SEED is " +
                             (text ? "'" + std::string(s) + "', not a decimal number" : "not set") +
                             ": the hidden tests draw their inputs from it (configure with "
                             "-DANDREA_HIDDEN_SEED=N and run them "
                             "with ctest, or set it in the environment)");
  }
  return value;
}

std::string seed_note() {
  return fmt::format("inputs drawn from seed {0} (ANDREA_HIDDEN_SEED={0} draws them again)",
                     seed());
}

namespace {

// FNV-1a: a test's name as 64 bits, mixed into the seed.
std::uint64_t hash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

std::mt19937_64 generator_for(std::string_view name) {
  const std::uint64_t s = seed(), h = hash(name);
  std::seed_seq sequence{static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(s >> 32),
                         static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h >> 32)};
  return std::mt19937_64(sequence);
}

}  // namespace

Draw::Draw(std::string_view name) : generator_(generator_for(name)) {}

std::int64_t Draw::between(std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(generator_);
}

std::int64_t Draw::odd(std::int64_t lo, std::int64_t hi) {
  const std::int64_t n = between(lo, hi);
  return n % 2 != 0 ? n : (n + 1 <= hi ? n + 1 : n - 1);
}

std::int64_t Draw::not_multiple_of_32(std::int64_t lo, std::int64_t hi) {
  const std::int64_t n = between(lo, hi);
  return n % 32 != 0 ? n : (n + 1 <= hi ? n + 1 : n - 1);
}

Matrix Draw::table(std::int64_t rows, std::int64_t cols) {
  Matrix m(rows, cols);
  const float scale = 1.0f / std::sqrt(static_cast<float>(cols));
  for (float& x : m.view().flat()) {
    // 24 random bits as a float in [-1, 1): exact, and much faster than a distribution.
    x = (static_cast<float>(generator_() >> 40) * 0x1p-23f - 1.0f) * scale;
  }
  return m;
}

Matrix Draw::table_with_specials(std::int64_t rows, std::int64_t cols) {
  Matrix m = table(rows, cols);
  for (float& x : m.view().flat()) {
    if (generator_() % 64 != 0) continue;
    switch (generator_() % 4) {
      case 0:
        x = -0.0f;
        break;
      case 1:
        x = std::numeric_limits<float>::denorm_min() * static_cast<float>(1 + generator_() % 1000);
        break;
      case 2:
        x = std::ldexp(1.0f, static_cast<int>(generator_() % 40));
        break;  // up to 2^39
      default:
        x = -std::ldexp(1.0f, -static_cast<int>(generator_() % 100));
        break;  // down to 2^-99
    }
  }
  return m;
}

std::vector<std::int32_t> Draw::ids(std::int64_t n, std::int64_t vocab_size) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
  for (auto& id : ids) id = static_cast<std::int32_t>(between(0, vocab_size - 1));
  if (n >= 4) {  // one id over a stretch of positions: many contributions to one row
    const std::int64_t length = between(1, n / 4), start = between(0, n - length);
    std::fill_n(ids.begin() + start, length, static_cast<std::int32_t>(between(0, vocab_size - 1)));
  }
  if (n >= 2) {
    const std::int64_t first = between(0, n - 1);
    std::int64_t last = between(0, n - 2);
    if (last >= first) ++last;  // another position
    ids[static_cast<std::size_t>(first)] = 0;
    ids[static_cast<std::size_t>(last)] = static_cast<std::int32_t>(vocab_size - 1);
  } else {
    ids[0] = static_cast<std::int32_t>(vocab_size - 1);
  }
  return ids;
}

Matrix poisoned(std::int64_t rows, std::int64_t cols) {
  Matrix m(rows, cols);
  std::ranges::fill(m.view().flat(), std::numeric_limits<float>::quiet_NaN());
  return m;
}

namespace {

std::string value(float x) {
  if (std::isnan(x)) return "nan (never written? the output was filled with NaN)";
  return fmt::format("{:.9g}", x);
}

std::string bits(float x) {
  return fmt::format("{:.9g} (bits {:#010x})", x, std::bit_cast<std::uint32_t>(x));
}

std::string index_of(std::size_t i, std::int64_t rows, std::int64_t cols) {
  if (rows <= 1 && cols <= 0) return fmt::format("[{}]", i);
  return fmt::format("[{}, {}]", static_cast<std::int64_t>(i) / cols,
                     static_cast<std::int64_t>(i) % cols);
}

::testing::AssertionResult shapes_agree(std::string_view what, ConstFloatView got,
                                        ConstFloatView expected) {
  if (got.rows() == expected.rows() && got.cols() == expected.cols())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": shape (" << got.rows() << ", " << got.cols() << "), expected ("
         << expected.rows() << ", " << expected.cols() << ")";
}

::testing::AssertionResult compare(std::string_view what, std::span<const float> got,
                                   std::span<const float> expected, std::int64_t rows,
                                   std::int64_t cols, Tolerance tol,
                                   std::span<const double> extra_abs) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], e = expected[i];
    const double allowed =
        tol.abs + (extra_abs.empty() ? 0.0 : extra_abs[i]) + tol.rel * std::abs(e);
    const bool ok = !std::isnan(g) && !std::isnan(e) && (g == e || std::abs(g - e) <= allowed);
    if (!ok && wrong++ == 0) first = i;
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  const std::string shape =
      cols > 0 ? fmt::format("({}, {})", rows, cols) : fmt::format("({})", got.size());
  const double allowed =
      tol.abs + (extra_abs.empty() ? 0.0 : extra_abs[first]) + tol.rel * std::abs(expected[first]);
  return ::testing::AssertionFailure()
         << what << " " << shape << ": element " << index_of(first, rows, cols) << " is "
         << value(got[first]) << ", the course's solution gives "
         << fmt::format("{:.9g}", expected[first]) << " (allowed difference "
         << fmt::format("{:.3g}", allowed) << "); " << wrong << " of " << got.size()
         << " elements differ; " << seed_note();
}

}  // namespace

::testing::AssertionResult matches(std::string_view what, ConstFloatView got,
                                   ConstFloatView expected, Tolerance tol,
                                   std::span<const double> extra_abs) {
  if (auto agree = shapes_agree(what, got, expected); !agree) return agree;
  return compare(what, got.flat(), expected.flat(), expected.rows(), expected.cols(), tol,
                 extra_abs);
}

::testing::AssertionResult matches(std::string_view what, std::span<const float> got,
                                   std::span<const float> expected, Tolerance tol) {
  if (got.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << what << ": " << got.size() << " elements, expected " << expected.size();
  }
  return compare(what, got, expected, 1, 0, tol, {});
}

::testing::AssertionResult same_bits(std::string_view what, ConstFloatView got,
                                     ConstFloatView expected) {
  if (auto agree = shapes_agree(what, got, expected); !agree) return agree;
  std::size_t wrong = 0, first = 0;
  const auto g = got.flat(), e = expected.flat();
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::bit_cast<std::uint32_t>(g[i]) != std::bit_cast<std::uint32_t>(e[i]) && wrong++ == 0)
      first = i;
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << " (" << got.rows() << ", " << got.cols() << "): element "
         << index_of(first, got.rows(), got.cols()) << " is "
         << (std::isnan(g[first]) ? value(g[first]) : bits(g[first]))
         << ", the course's solution gives " << bits(e[first]) << " (every bit must agree); "
         << wrong << " of " << g.size() << " elements differ; " << seed_note();
}

::testing::AssertionResult close_to(std::string_view what, double got, double expected,
                                    Tolerance tol) {
  const double allowed = tol.abs + tol.rel * std::abs(expected);
  if (!std::isnan(got) && !std::isnan(expected) &&
      (got == expected || std::abs(got - expected) <= allowed)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << what << " is " << fmt::format("{:.9g}", got) << ", the course's solution gives "
         << fmt::format("{:.9g}", expected) << " (allowed difference "
         << fmt::format("{:.3g}", allowed) << "); " << seed_note();
}

}  // namespace andrea::hidden
