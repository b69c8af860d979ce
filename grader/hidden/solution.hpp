// The course's solutions, for the hidden tests to compare with: andrea::solution::X is
// reference/X.cpp compiled a second time under a namespace of its own (as_solution.hpp), run in
// the test program while the student's X runs in the piece runner. Each is
// declared with the type of the reference header's own declaration, so the two cannot drift.
#pragma once

// Every piece's headers, then its functions with a C++ step: andrea_pieces/headers.inc and
// functions.inc, made by tests/CMakeLists.txt from lessons/lessons.json.
#include "andrea_pieces/headers.inc"

namespace andrea::solution {

#define ANDREA_PIECE(name) decltype(::andrea::reference::name) name;
#define ANDREA_PIECE_CPU_ONLY(name) ANDREA_PIECE(name)
#define ANDREA_PIECE_CUDA_ONLY(name)  // no C++ step: no solution here
#include "andrea_pieces/functions.inc"
#undef ANDREA_PIECE
#undef ANDREA_PIECE_CPU_ONLY
#undef ANDREA_PIECE_CUDA_ONLY

/// Lesson 9's whole step, reference::sgns_step, with scratch buffers of its own (its
/// TrainingScratch is the solution's type, which the tests do not name): solution_step.cpp.
double sgns_step_once(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets,
                      float lr);

}  // namespace andrea::solution
