// Reading the golden files (golden/*.json, written by golden/generate.py with
// PyTorch) and comparing results with them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <vector>

#include "core/config.hpp"
#include "core/init.hpp"
#include "core/tensor.hpp"

namespace andrea::testing {

using nlohmann::json;

/// golden/<piece>.json, parsed once per process.
const json& golden(std::string_view piece);
/// The case called `name` in golden/<piece>.json (fails the test if absent).
const json& golden_case(std::string_view piece, std::string_view name);

/// A Config from a case's {"vocab_size", "d_model", "context_length"}.
Config config_of(const json& c);
/// A whole (rows, d_model) table drawn with the shared init (andrea::init_value),
/// made once per process and shape.
const Matrix& init_table(Table table, std::int64_t rows, std::int64_t d_model,
                         std::uint64_t seed = default_seed);
/// The wte (V, d_model) and wpe (T, d_model) tables of a config.
const Matrix& token_table(const Config& c, std::uint64_t seed = default_seed);
const Matrix& position_table(const Config& c, std::uint64_t seed = default_seed);

/// A JSON list of lists (or a flat list, as one row) as a Matrix.
Matrix to_matrix(const json& rows);
std::vector<float> to_floats(const json& values);
std::vector<std::int32_t> to_ids(const json& values);

struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};
/// A case's tolerance: {"abs": a, "rel": r}; `field` selects e.g. "norm_tolerance".
Tolerance tolerance_of(const json& c, std::string_view field = "tolerance");

/// Element-wise |got - expected| <= abs + rel * |expected|. On failure the
/// message gives the shape, the first wrong index (row, col), expected, got and
/// how many elements are wrong: enough to fix the code without opening the test.
::testing::AssertionResult all_close(std::string_view what, std::span<const float> got,
                                     std::span<const float> expected, Tolerance tol,
                                     std::int64_t cols = 0);
::testing::AssertionResult all_close(std::string_view what, ConstFloatView got,
                                     ConstFloatView expected, Tolerance tol);
::testing::AssertionResult close(std::string_view what, double got, double expected, Tolerance tol);

}  // namespace andrea::testing
