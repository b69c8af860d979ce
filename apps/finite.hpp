// The one rule every table read or written by the programs obeys: each value is finite.
#pragma once

#include <fmt/format.h>
#include <cmath>
#include <string_view>

#include "core/errors.hpp"
#include "core/tensor.hpp"

namespace andrea::cli {

/// Throws andrea::InputError "`what` row 3 holds nan (column 5): ..." at the first
/// non-finite value of table (rows, cols); `what` names the file and the tensor.
inline void check_finite_rows(ConstFloatView table, std::string_view what) {
  for (std::int64_t r = 0; r < table.rows(); ++r) {
    for (std::int64_t c = 0; c < table.cols(); ++c) {
      if (!std::isfinite(table(r, c))) {
        throw InputError(fmt::format("{} row {} holds {} (column {}): every value must be finite",
                                     what, r, table(r, c), c));
      }
    }
  }
}

}  // namespace andrea::cli
