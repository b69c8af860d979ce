// Lesson 07_position_schemes: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/sinusoidal.hpp.
// Grade it: python3 lessons/grade.py -L L07
#include "reference/sinusoidal.hpp"

#include <cmath>

#include "core/check.hpp"

namespace andrea::reference {

void sinusoidal_table(std::int64_t n, std::int64_t d_model, std::int64_t context_length,
                      FloatView out) {
  // TODO(lesson 07_position_schemes): write sinusoidal_table() here.
  throw NotImplemented("07_position_schemes/sinusoidal.cpp", "sinusoidal_table");
}

}  // namespace andrea::reference
