#include "reference/norm.hpp"

#include <cmath>

#include "core/check.hpp"

namespace andrea::reference {

// BEGIN SOLUTION
namespace {

// Sum of squares in double: no float32 value can overflow or underflow it.
double sum_of_squares(std::span<const float> v) {
  double sum = 0.0;
  for (const float x : v) sum += static_cast<double>(x) * x;
  return sum;
}

}  // namespace
// END SOLUTION

float l2_norm(std::span<const float> v) {
  // BEGIN SOLUTION
  check::l2_norm_args(v);
  return static_cast<float>(std::sqrt(sum_of_squares(v)));
  // END SOLUTION
}

void row_norms(ConstFloatView m, std::span<float> out) {
  // BEGIN SOLUTION
  check::row_norms_args(m, out);
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    out[static_cast<std::size_t>(r)] = static_cast<float>(std::sqrt(sum_of_squares(m.row(r))));
  }
  // END SOLUTION
}

}  // namespace andrea::reference
