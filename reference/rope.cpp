#include "reference/rope.hpp"

#include <cmath>

#include "core/check.hpp"

namespace andrea::reference {

void rope(ConstFloatView x, std::span<const std::int32_t> positions, double base, FloatView out) {
  // BEGIN SOLUTION
  check::rope_args(x, positions, base, out);
  const std::int64_t d = x.cols();
  for (std::int64_t r = 0; r < x.rows(); ++r) {
    const double pos = positions[static_cast<std::size_t>(r)];
    for (std::int64_t i = 0; i < d / 2; ++i) {
      const double theta = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
      const double c = std::cos(pos * theta), s = std::sin(pos * theta);
      const double a = x(r, 2 * i), b = x(r, 2 * i + 1);      // the pair (2i, 2i + 1)
      out(r, 2 * i) = static_cast<float>(a * c - b * s);      // read both before writing:
      out(r, 2 * i + 1) = static_cast<float>(a * s + b * c);  // out may be x
    }
  }
  // END SOLUTION
}

}  // namespace andrea::reference
