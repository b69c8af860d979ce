// Lesson 9's whole step for the hidden tests: the course's TrainingScratch and sgns_step.
#include "reference/training.hpp"
#include "grader/hidden/solution.hpp"

namespace andrea::hidden {

double solution_sgns_step(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets,
                          float lr) {
  solution::TrainingScratch scratch(wte.rows(), wte.cols(), targets.rows(), targets.cols());
  return solution::sgns_step(wte, wout, centres, targets, lr, scratch);
}

}  // namespace andrea::hidden
