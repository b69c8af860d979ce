// Lesson 03_dot_product: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/dot.hpp.
// Grade it: python3 lessons/grade.py -L L03
#include "reference/dot.hpp"

#include <cmath>

#include "core/check.hpp"

namespace andrea::reference {

// TODO: helpers (dot_and_norms, cosine), about 21 lines in the solution.

float dot(std::span<const float> u, std::span<const float> v) {
  // TODO(lesson 03_dot_product): write dot() here.
  throw NotImplemented("03_dot_product/dot.cpp", "dot");
}

float cosine_similarity(std::span<const float> u, std::span<const float> v) {
  // TODO(lesson 03_dot_product): write cosine_similarity() here.
  throw NotImplemented("03_dot_product/dot.cpp", "cosine_similarity");
}

void cosine_matrix(ConstFloatView rows, FloatView out) {
  // TODO(lesson 03_dot_product): write cosine_matrix() here.
  throw NotImplemented("03_dot_product/dot.cpp", "cosine_matrix");
}

}  // namespace andrea::reference
