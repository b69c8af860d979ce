// The course's solutions, for the hidden tests to compare with: andrea::solution::X is
// reference/X.cpp compiled a second time under a namespace of its own (as_solution.hpp), in
// the same program as the student's andrea::reference::X or andrea::cuda::X. Each is
// declared with the type of the reference header's own declaration, so the two cannot drift.
#pragma once

#include "reference/backward.hpp"
#include "reference/bpe.hpp"
#include "reference/combine.hpp"
#include "reference/dot.hpp"
#include "reference/lookup.hpp"
#include "reference/norm.hpp"
#include "reference/params.hpp"
#include "reference/position.hpp"
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#include "reference/training.hpp"
#include "reference/vocab_parallel.hpp"

#define ANDREA_SOLUTION(name) decltype(::andrea::reference::name) name

namespace andrea::solution {

ANDREA_SOLUTION(lookup);   // lesson 1
ANDREA_SOLUTION(l2_norm);  // lesson 2
ANDREA_SOLUTION(row_norms);
ANDREA_SOLUTION(dot);  // lesson 3
ANDREA_SOLUTION(cosine_similarity);
ANDREA_SOLUTION(cosine_matrix);
ANDREA_SOLUTION(positions);  // lesson 4
ANDREA_SOLUTION(combine);    // lesson 5
ANDREA_SOLUTION(combine_batch);
ANDREA_SOLUTION(materialize);       // lesson 6
ANDREA_SOLUTION(sinusoidal_table);  // lesson 7
ANDREA_SOLUTION(rope);
ANDREA_SOLUTION(wte_backward);  // lesson 8
ANDREA_SOLUTION(wpe_backward);
ANDREA_SOLUTION(embedding_backward);
ANDREA_SOLUTION(zero_rows);
ANDREA_SOLUTION(sgd_step_rows);
ANDREA_SOLUTION(pair_scores);  // lesson 9
ANDREA_SOLUTION(score_gradients);
ANDREA_SOLUTION(row_gradients);
ANDREA_SOLUTION(vocab_parallel_lookup);  // lesson 10
ANDREA_SOLUTION(vocab_parallel_wte_backward);
ANDREA_SOLUTION(encode_chunks);  // lesson 11
ANDREA_SOLUTION(decode_ids);
ANDREA_SOLUTION(count_pairs);

/// Lesson 9's whole step, reference::sgns_step, with scratch buffers of its own (its
/// TrainingScratch is the solution's type, which the tests do not name): solution_step.cpp.
double sgns_step_once(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets,
                      float lr);

}  // namespace andrea::solution

#undef ANDREA_SOLUTION
