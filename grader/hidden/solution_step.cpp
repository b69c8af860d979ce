// Lesson 9's whole step for the hidden tests, compiled like the solution (as_solution.hpp):
// TrainingScratch and sgns_step here are the solution's own.
#include "reference/training.hpp"
#include "grader/hidden/solution.hpp"

namespace andrea::solution {

double sgns_step_once(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets,
                      float lr) {
  TrainingScratch scratch(wte.rows(), wte.cols(), targets.rows(), targets.cols());
  return sgns_step(wte, wout, centres, targets, lr, scratch);
}

}  // namespace andrea::solution
