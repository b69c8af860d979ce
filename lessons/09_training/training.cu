// Lesson 09_training — exercise. Generated from cuda/training.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/training.hpp. Run this lesson's tests: ctest --preset grade -L L09
// Lesson 9 — the pieces of one skip-gram step as kernels. The update itself is lesson 8's
// deterministic scatter (wte_backward) and sparse SGD step.
//
//   pair_scores      grid ceil(P (1 + k) / 128), block 128: thread i = p (1 + k) + j
//                    s[i] = wte[centres[p]] . wout[targets[i]]
//   score_gradients  the same layout: g[i] = sigmoid(s[i]) - (j == 0), loss term in double
//   row_gradients    grid P, block <= 256 striding over c:
//                    dcentre[p][c] = sum_j g[p][j] wout[targets[p][j]][c]
//                    dtarget[p (1 + k) + j][c] = g[p][j] wte[centres[p]][c]
//   zero_rows        grid = number of ids, block <= 256 striding over c
#include "cuda/training.hpp"

#include <algorithm>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

// Your helper functions and kernels go here.

}  // namespace

void pair_scores(ConstFloatView wte, ConstFloatView wout, TokenIds centres, TokenIdBatch targets,
                 FloatView scores) {
  // TODO(lesson 09_training): write pair_scores() here.
  throw NotImplemented("09_training/training.cu", "pair_scores");
}

double score_gradients(ConstFloatView scores, FloatView grads) {
  // TODO(lesson 09_training): write score_gradients() here.
  throw NotImplemented("09_training/training.cu", "score_gradients");
}

void row_gradients(ConstFloatView wte, ConstFloatView wout, TokenIds centres,
                   TokenIdBatch targets, ConstFloatView grads, FloatView dcentre,
                   FloatView dtarget) {
  // TODO(lesson 09_training): write row_gradients() here.
  throw NotImplemented("09_training/training.cu", "row_gradients");
}

void zero_rows(TokenIds ids, FloatView dw) {
  // TODO(lesson 09_training): write zero_rows() here.
  throw NotImplemented("09_training/training.cu", "zero_rows");
}

ANDREA_CUDA_END
