// A test passes only by finishing its checks.
//
// Every test program forks at start-up, before any other static initialiser runs (the
// exercise's included). The parent runs no code of the exercise: it waits for the child,
// which runs the tests, and exits with the child's result only when the child said, through a
// pipe, that main() reached its end. A child that ends any other way — exit(0), _exit(0),
// quick_exit, abort(), a signal, kill(getpid(), SIGKILL), a static initialiser that ends the
// program before main — makes the program fail, with a message that says so. What the
// exercise prints (fake googletest or ctest lines included) changes nothing: ctest reads the
// exit status.
#pragma once

namespace andrea::testing {

/// Called by main() with the value it is about to return: tells the supervising parent that
/// the tests finished. Also fails a run that ran no test (a --gtest_filter that matched
/// nothing, as a test name printed by the exercise during discovery would). Returns the
/// status main() returns.
int finished(int result);

}  // namespace andrea::testing
