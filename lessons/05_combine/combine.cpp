// Lesson 05_combine: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/combine.hpp.
// Grade it: python3 lessons/grade.py -L L05
#include "reference/combine.hpp"

#include "core/check.hpp"

namespace andrea::reference {

// TODO: helpers (add_rows), about 12 lines in the solution.

void combine(ConstFloatView wte, ConstFloatView wpe, TokenIds ids, FloatView out) {
  // TODO(lesson 05_combine): write combine() here.
  throw NotImplemented("05_combine/combine.cpp", "combine");
}

void combine_batch(ConstFloatView wte, ConstFloatView wpe, TokenIdBatch ids, FloatView out) {
  // TODO(lesson 05_combine): write combine_batch() here.
  throw NotImplemented("05_combine/combine.cpp", "combine_batch");
}

}  // namespace andrea::reference
