#include "reference/norm.hpp"

#include <cmath>

#include "reference/check.hpp"

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
  check::vector_size("v", v, static_cast<std::int64_t>(v.size()));
  check::finite("v", v);
  return static_cast<float>(std::sqrt(sum_of_squares(v)));
  // END SOLUTION
}

void row_norms(ConstFloatView m, std::span<float> out) {
  // BEGIN SOLUTION
  check::non_empty("m", m);
  check::shape("out", static_cast<std::int64_t>(out.size()), 1, m.rows(), 1);
  check::finite("m", m.flat());
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    out[static_cast<std::size_t>(r)] = static_cast<float>(std::sqrt(sum_of_squares(m.row(r))));
  }
  // END SOLUTION
}

}  // namespace andrea::reference
