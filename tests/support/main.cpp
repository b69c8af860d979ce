// The test entry point. A test passes only by finishing (finished.hpp). For the GPU backend
// without a CUDA device, the tests are not run: the reason is printed and the exit code 77 tells
// ctest (SKIP_RETURN_CODE) to report them as skipped; with a device or driver that fails, the
// program fails with the error (cudasim/include/cudasim/gpu_presence.hpp). The tests of another backend's
// step (ANDREA_ONLY_ON) are left out of the list.
#include <gtest/gtest.h>

#include <string>

#include "finished.hpp"
#include "heap.hpp"
#include "only_on.hpp"

#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
#include "cuda/runtime.hpp"
#endif
#if defined(ANDREA_BACKEND_GPU)
#include <cstdio>

#include "cudasim/gpu_presence.hpp"  // presence_in_test: CUDASIM_FAKE_DEVICE_COUNT
#endif

namespace andrea::testing {

// This entry point is compiled once per backend (tests/CMakeLists.txt, andrea_test_main).
Backend this_backend() {
#if defined(ANDREA_BACKEND_GPU)
  return Backend::gpu;
#elif defined(ANDREA_BACKEND_CUDA)
  return Backend::cudasim;
#else
  return Backend::cpu;
#endif
}

namespace {

// Adds the patterns of the tests that do not run on this backend to --gtest_filter's negative
// part: they are neither listed (ctest's discovery) nor run.
void leave_out_other_backends() {
  const std::string left_out = left_out_on(this_backend());
  if (left_out.empty()) return;
  std::string& filter = ::testing::GTEST_FLAG(filter);
  if (filter.empty()) return;  // --gtest_filter= selects nothing: finished() says so
  filter += (filter.find('-') == std::string::npos ? "-" : ":") + left_out;
}

}  // namespace

}  // namespace andrea::testing

int main(int argc, char** argv) {
  andrea::testing::keep_freed_memory();
  ::testing::InitGoogleTest(&argc, argv);
  andrea::testing::leave_out_other_backends();
#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
  // One OS thread runs the blocks one after the other, in the order CUDASIM_ORDER gives: a
  // kernel whose blocks step on each other fails the same way in every run.
  cudasim::set_worker_threads(1);
#endif
#if defined(ANDREA_BACKEND_GPU)
  if (!::testing::GTEST_FLAG(list_tests)) {
    const cudasim::gpu::Presence device = cudasim::gpu::presence_in_test();
    if (device.kind == cudasim::gpu::Presence::none) {
      std::printf("[  SKIPPED ] every test of this program: %s\n", device.reason.c_str());
      return andrea::testing::finished(device.exit_status());
    }
    if (device.kind == cudasim::gpu::Presence::broken) {
      std::fprintf(stderr, "[  FAILED  ] every test of this program: %s\n", device.reason.c_str());
      return andrea::testing::finished(device.exit_status());
    }
  }
#endif
  return andrea::testing::finished(RUN_ALL_TESTS());
}
