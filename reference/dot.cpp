#include "reference/dot.hpp"

#include <cmath>

#include "core/check.hpp"

namespace andrea::reference {

// BEGIN SOLUTION
namespace {

struct DotAndNorms {
  double dot = 0.0, uu = 0.0, vv = 0.0;
};

// One pass over both vectors, every product in double (exact for float32 inputs).
DotAndNorms dot_and_norms(std::span<const float> u, std::span<const float> v) {
  DotAndNorms s;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const double a = u[i], b = v[i];
    s.dot += a * b;
    s.uu += a * a;
    s.vv += b * b;
  }
  return s;
}

// cos = dot / (|u| |v|); 0 when either vector is zero (the angle is undefined).
double cosine(const DotAndNorms& s) {
  if (s.uu == 0.0 || s.vv == 0.0) return 0.0;
  return s.dot / (std::sqrt(s.uu) * std::sqrt(s.vv));
}

}  // namespace
// END SOLUTION

float dot(std::span<const float> u, std::span<const float> v) {
  // BEGIN SOLUTION
  check::dot_args(u, v);
  return static_cast<float>(dot_and_norms(u, v).dot);
  // END SOLUTION
}

float cosine_similarity(std::span<const float> u, std::span<const float> v) {
  // BEGIN SOLUTION
  check::dot_args(u, v);
  return static_cast<float>(cosine(dot_and_norms(u, v)));
  // END SOLUTION
}

void cosine_matrix(ConstFloatView rows, FloatView out) {
  // BEGIN SOLUTION
  check::cosine_matrix_args(rows, out);
  for (std::int64_t i = 0; i < rows.rows(); ++i) {
    for (std::int64_t j = 0; j < rows.rows(); ++j) {
      out(i, j) = static_cast<float>(cosine(dot_and_norms(rows.row(i), rows.row(j))));
    }
  }
  // END SOLUTION
}

}  // namespace andrea::reference
