// Lesson 09_training: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/training.hpp.
// Grade it: python3 lessons/grade.py -L L09
#include "reference/training.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "reference/backward.hpp"

namespace andrea::reference {

// TODO: helpers (dot_rows, prefetch_targets, softplus), about 29 lines in the solution.

void pair_scores(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                 FloatView scores) {
  // TODO(lesson 09_training): write pair_scores() here.
  throw NotImplemented("09_training/training.cpp", "pair_scores");
}

double score_gradients(ConstFloatView scores, FloatView grads) {
  // TODO(lesson 09_training): write score_gradients() here.
  throw NotImplemented("09_training/training.cpp", "score_gradients");
}

void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                   ConstFloatView grads, FloatView dcentre, FloatView dtarget) {
  // TODO(lesson 09_training): write row_gradients() here.
  throw NotImplemented("09_training/training.cpp", "row_gradients");
}

TrainingScratch::TrainingScratch(std::int64_t vocab_size, std::int64_t d_model,
                                 std::int64_t max_pairs, std::int64_t targets_per_pair)
    : scores(max_pairs, targets_per_pair),
      grads(max_pairs, targets_per_pair),
      dcentre(max_pairs, d_model),
      dtarget(max_pairs * targets_per_pair, d_model),
      dwte(vocab_size, d_model),
      dwout(vocab_size, d_model) {}

double sgns_step(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets, float lr,
                 TrainingScratch& scratch) {
  // TODO(lesson 09_training): write sgns_step() here.
  throw NotImplemented("09_training/training.cpp", "sgns_step");
}

}  // namespace andrea::reference
