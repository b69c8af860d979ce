// The test entry point. A test passes only by finishing (finished.hpp). For the GPU backend
// without a usable CUDA device, the tests are not run: the reason is printed and the exit code
// 77 tells ctest (SKIP_RETURN_CODE) to report them as skipped.
#include <gtest/gtest.h>

#include "finished.hpp"

#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
#include "cuda/runtime.hpp"
#endif
#if defined(ANDREA_BACKEND_GPU)
#include <cstdio>
#include <string>
#include <string_view>

#include "cuda/device.hpp"
#endif

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
  // One OS thread runs the blocks one after the other, in the order CUDASIM_ORDER gives: a
  // kernel whose blocks step on each other fails the same way in every run.
  cudasim::set_worker_threads(1);
#endif
#if defined(ANDREA_BACKEND_GPU)
  std::string reason;
  if (!::testing::GTEST_FLAG(list_tests) && !andrea::cuda::device_available(&reason)) {
    std::printf("[  SKIPPED ] every test of this program: %s\n", reason.c_str());
    return andrea::testing::finished(77);
  }
#endif
  return andrea::testing::finished(RUN_ALL_TESTS());
}
