// The course's solutions, for the hidden tests to compare with: andrea::solution::X is
// reference/X.cpp compiled a second time under a namespace of its own (as_solution.hpp), in
// the same program as the student's andrea::reference::X or andrea::cuda::X. Each is
// declared with the type of the reference header's own declaration, so the two cannot drift.
#pragma once

// Every piece's reference header (solution_headers.inc), then its functions with a C++ step
// (solution_functions.inc): both made by tests/hidden/CMakeLists.txt from lessons/lessons.json.
#include "solution_headers.inc"

#define ANDREA_SOLUTION(name) decltype(::andrea::reference::name) name;

namespace andrea::solution {

#include "solution_functions.inc"

/// Lesson 9's whole step, reference::sgns_step, with scratch buffers of its own (its
/// TrainingScratch is the solution's type, which the tests do not name): solution_step.cpp.
double sgns_step_once(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets,
                      float lr);

}  // namespace andrea::solution

#undef ANDREA_SOLUTION
