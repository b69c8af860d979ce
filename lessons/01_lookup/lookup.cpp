// Lesson 01_lookup: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/lookup.hpp.
// Grade it: python3 lessons/grade.py -L L01
#include "reference/lookup.hpp"

#include <algorithm>

#include "core/check.hpp"

namespace andrea::reference {

void lookup(ConstFloatView wte, TokenIds ids, FloatView out) {
  // TODO(lesson 01_lookup): write lookup() here.
  throw NotImplemented("01_lookup/lookup.cpp", "lookup");
}

}  // namespace andrea::reference
