// Pictures of the layer as SVG text (labels are text; any browser opens them):
// a heatmap of a similarity matrix, an image of a table, a histogram.
// Every drawn cell and bar carries its number in data-* attributes, so a test (or
// a reader) can find the value behind each colour. SVG 1.1: https://www.w3.org/TR/SVG11/
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"

namespace andrea::svg {

/// A heatmap of a square matrix m (k, k) of values in [-1, 1], e.g. cosine
/// similarities: one <rect class="cell" data-row data-col data-value> per entry,
/// coloured blue (-1) - white (0) - red (+1), labels[i] beside row i and above
/// column i, the value written in each cell when k <= 16, and a colour scale.
/// Throws andrea::InputError when m is not square or labels.size() != k.
std::string heatmap(std::string_view title, const std::vector<std::string>& labels,
                    ConstFloatView m);

/// An image of a table (rows, dims), e.g. wpe (T, d_model): one cell per entry of
/// the top-left max_rows x max_cols block (the title says how much is shown),
/// coloured on a symmetric scale -a..+a, a = the largest |value| shown.
/// Throws andrea::InputError when the table is empty or holds a non-finite value.
std::string table_image(std::string_view name, ConstFloatView table, std::int64_t max_rows = 64,
                        std::int64_t max_cols = 128);

/// A histogram of values (e.g. row norms) in `bins` equal bins over [min, max]:
/// one <rect class="bar" data-lo data-hi data-count> per bin, the last bin closed.
/// Throws andrea::InputError when values is empty, holds a non-finite value, or bins < 1.
std::string histogram(std::string_view title, std::span<const float> values, int bins = 30);

}  // namespace andrea::svg
