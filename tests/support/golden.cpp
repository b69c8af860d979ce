#include "golden.hpp"

#include <fmt/format.h>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace andrea::testing {

const json& golden(std::string_view piece) {
  static std::map<std::string, json, std::less<>> cache;
  static std::mutex mutex;
  const std::scoped_lock lock(mutex);
  if (const auto it = cache.find(piece); it != cache.end()) return it->second;
  const std::string path = fmt::format("{}/{}.json", ANDREA_GOLDEN_DIR, piece);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open golden file " + path);
  return cache.emplace(std::string(piece), json::parse(in)).first->second;
}

const json& golden_case(std::string_view piece, std::string_view name) {
  for (const json& c : golden(piece).at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error(fmt::format("golden/{}.json has no case '{}'", piece, name));
}

Config config_of(const json& c) {
  const json& cfg = c.at("config");
  return {"golden", cfg.at("vocab_size").get<std::int64_t>(), cfg.at("d_model").get<std::int64_t>(),
          cfg.at("context_length").get<std::int64_t>(), false};
}

const Matrix& init_table(Table table, std::int64_t rows, std::int64_t d_model, std::uint64_t seed) {
  using Key = std::tuple<Table, std::int64_t, std::int64_t, std::uint64_t>;
  static std::map<Key, Matrix> cache;
  static std::mutex mutex;
  const std::scoped_lock lock(mutex);
  const Key key{table, rows, d_model, seed};
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  Matrix m(rows, d_model);
  FloatView v = m.view();
  for (std::int64_t i = 0; i < v.size(); ++i) v.data()[i] = init_value(seed, table, i, d_model);
  return cache.emplace(key, std::move(m)).first->second;
}

const Matrix& token_table(const Config& c, std::uint64_t seed) {
  return init_table(Table::token, c.vocab_size, c.d_model, seed);
}

const Matrix& position_table(const Config& c, std::uint64_t seed) {
  return init_table(Table::position, c.context_length, c.d_model, seed);
}

std::vector<float> to_floats(const json& values) {
  std::vector<float> out;
  for (const json& x : values) out.push_back(x.get<float>());
  return out;
}

std::vector<std::int32_t> to_ids(const json& values) {
  return values.get<std::vector<std::int32_t>>();
}

Matrix to_matrix(const json& rows) {
  if (!rows.empty() && !rows.front().is_array()) {
    const std::vector<float> flat = to_floats(rows);
    Matrix m(1, static_cast<std::int64_t>(flat.size()));
    std::copy(flat.begin(), flat.end(), m.view().data());
    return m;
  }
  Matrix m(static_cast<std::int64_t>(rows.size()),
           rows.empty() ? 0 : static_cast<std::int64_t>(rows.front().size()));
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    const std::vector<float> row = to_floats(rows.at(static_cast<std::size_t>(r)));
    std::copy(row.begin(), row.end(), m.view().row(r).begin());
  }
  return m;
}

Tolerance tolerance_of(const json& c, std::string_view field) {
  const json& t = c.at(field);
  return {t.at("abs").get<double>(), t.at("rel").get<double>()};
}

namespace {

bool within(double got, double expected, Tolerance tol) {
  if (std::isnan(got) || std::isnan(expected)) return false;
  if (got == expected) return true;  // also equal infinities
  return std::abs(got - expected) <= tol.abs + tol.rel * std::abs(expected);
}

}  // namespace

::testing::AssertionResult all_close(std::string_view what, std::span<const float> got,
                                     std::span<const float> expected, Tolerance tol,
                                     std::int64_t cols) {
  const std::string shape =
      cols > 0 ? fmt::format("({}, {})", static_cast<std::int64_t>(expected.size()) / cols, cols)
               : fmt::format("({})", expected.size());
  if (got.size() != expected.size()) {
    return ::testing::AssertionFailure() << what << ": got " << got.size() << " elements, expected "
                                         << expected.size() << " (shape " << shape << ")";
  }
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!within(got[i], expected[i], tol)) {
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  const std::string index = cols > 0
                                ? fmt::format("[{}, {}]", static_cast<std::int64_t>(first) / cols,
                                              static_cast<std::int64_t>(first) % cols)
                                : fmt::format("[{}]", first);
  return ::testing::AssertionFailure()
         << what << " shape " << shape << ": first wrong element " << index << " expected "
         << fmt::format("{:.9g}", expected[first]) << " got " << fmt::format("{:.9g}", got[first])
         << " (tolerance abs " << tol.abs << " rel " << tol.rel << "); " << wrong << " of "
         << got.size() << " elements wrong";
}

::testing::AssertionResult all_close(std::string_view what, ConstFloatView got,
                                     ConstFloatView expected, Tolerance tol) {
  if (got.rows() != expected.rows() || got.cols() != expected.cols()) {
    return ::testing::AssertionFailure()
           << what << ": shape (" << got.rows() << ", " << got.cols() << "), expected ("
           << expected.rows() << ", " << expected.cols() << ")";
  }
  return all_close(what, got.flat(), expected.flat(), tol, expected.cols());
}

::testing::AssertionResult close(std::string_view what, double got, double expected,
                                 Tolerance tol) {
  if (within(got, expected, tol)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": expected " << fmt::format("{:.9g}", expected) << " got "
         << fmt::format("{:.9g}", got) << " (tolerance abs " << tol.abs << " rel " << tol.rel
         << ")";
}

}  // namespace andrea::testing
