// A cosine matrix drawn as an SVG heatmap (any browser shows it).
#pragma once

#include <string>
#include <vector>

#include "reference/tensor.hpp"

namespace andrea::cli {

/// Writes the (k, k) matrix `cos` with `words` as row and column labels: red for +1,
/// white for 0, blue for -1, each cell printing its value. Throws andrea::InputError when
/// the file cannot be written (nothing is left behind).
void write_heatmap_svg(const std::string& path, ConstFloatView cos, const std::vector<std::string>& words,
                       const std::string& title);

}  // namespace andrea::cli
