// Linked into the hidden tests of the CPU execution layer: their blocks and threads run in a
// random order drawn from the instructor's seed (the public tests run forward, reverse and
// random:7), set before the first test.
#include <gtest/gtest.h>

#include "cudasim/launch.hpp"
#include "grader/hidden/hidden.hpp"

namespace {

class SeededThreadOrder : public ::testing::Environment {
 public:
  void SetUp() override {
    cudasim::set_thread_order(cudasim::Order::random, andrea::hidden::seed());
  }
};

[[maybe_unused]] const ::testing::Environment* const registered =
    ::testing::AddGlobalTestEnvironment(new SeededThreadOrder);

}  // namespace
