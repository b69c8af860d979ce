// The course's solutions, for the hidden tests to compare with: solution::X is reference/X.cpp,
// the course's own, linked into the test program (andrea_solution_<piece>,
// grader/hidden/CMakeLists.txt) while the student's X runs in the piece runner. A hidden program
// links no student code, so the two never meet in one process; the grader's self-test checks it
// (nm: every function of andrea::reference a trusted program defines comes from reference/).
#pragma once

// Every piece's headers: andrea_pieces/headers.inc, made by tests/CMakeLists.txt from
// lessons/lessons.json.
#include "andrea_pieces/headers.inc"

namespace andrea {

namespace solution = reference;  // the course's solution, under the name the tests read

namespace hidden {

/// Lesson 9's whole step, reference::sgns_step, with scratch buffers of its own (the tests do
/// not name TrainingScratch): solution_step.cpp.
double solution_sgns_step(FloatView wte, FloatView wout, TokenIds centres, TokenIdBatch targets,
                          float lr);

}  // namespace hidden
}  // namespace andrea
