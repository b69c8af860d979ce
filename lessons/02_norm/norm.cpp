// Lesson 02_norm: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/norm.hpp.
// Grade it: python3 lessons/grade.py -L L02
#include "reference/norm.hpp"

#include <cmath>

#include "core/check.hpp"

namespace andrea::reference {

// TODO: helpers (sum_of_squares), about 8 lines in the solution.

float l2_norm(std::span<const float> v) {
  // TODO(lesson 02_norm): write l2_norm() here.
  throw NotImplemented("02_norm/norm.cpp", "l2_norm");
}

void row_norms(ConstFloatView m, std::span<float> out) {
  // TODO(lesson 02_norm): write row_norms() here.
  throw NotImplemented("02_norm/norm.cpp", "row_norms");
}

}  // namespace andrea::reference
