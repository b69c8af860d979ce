#include "reference/sinusoidal.hpp"

#include <cmath>

#include "core/check.hpp"

namespace andrea::reference {

void sinusoidal_table(std::int64_t n, std::int64_t d_model, std::int64_t context_length,
                      FloatView out) {
  // BEGIN SOLUTION
  check::sinusoidal_table_args(n, d_model, context_length, out);
  for (std::int64_t i = 0; i < d_model / 2; ++i) {
    // w_i = 10000^(-2i/d_model), in double: near pos = 1,000 a float32 angle pos * w_i
    // is already off by ~6e-5 radians, and sin/cos pass that error straight on.
    const double w =
        std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(d_model));
    for (std::int64_t pos = 0; pos < n; ++pos) {
      const double angle = static_cast<double>(pos) * w;
      out(pos, 2 * i) = static_cast<float>(std::sin(angle));      // even column: sin
      out(pos, 2 * i + 1) = static_cast<float>(std::cos(angle));  // odd column: cos
    }
  }
  // END SOLUTION
}

}  // namespace andrea::reference
