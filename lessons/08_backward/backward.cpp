// Lesson 08_backward: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/backward.hpp.
// Grade it: python3 lessons/grade.py -L L08
#include "reference/backward.hpp"

#include <algorithm>
#include <vector>

#include "core/check.hpp"

namespace andrea::reference {

// TODO: helpers (add_into, add_token_grads, add_position_grads), about 22 lines in the solution.

void wte_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte) {
  // TODO(lesson 08_backward): write wte_backward() here.
  throw NotImplemented("08_backward/backward.cpp", "wte_backward");
}

void wpe_backward(ConstFloatView dout, std::int64_t n, FloatView dwpe) {
  // TODO(lesson 08_backward): write wpe_backward() here.
  throw NotImplemented("08_backward/backward.cpp", "wpe_backward");
}

void embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe) {
  // TODO(lesson 08_backward): write embedding_backward() here.
  throw NotImplemented("08_backward/backward.cpp", "embedding_backward");
}

void zero_rows(TokenIds ids, FloatView dw) {
  // TODO(lesson 08_backward): write zero_rows() here.
  throw NotImplemented("08_backward/backward.cpp", "zero_rows");
}

void sgd_step_rows(TokenIds ids, ConstFloatView dw, float lr, FloatView w) {
  // TODO(lesson 08_backward): write sgd_step_rows() here.
  throw NotImplemented("08_backward/backward.cpp", "sgd_step_rows");
}

}  // namespace andrea::reference
