// The test entry point. A test passes only by finishing (finished.hpp). For the GPU backend
// without a CUDA device, the tests are not run: the reason is printed and the exit code 77 tells
// ctest (SKIP_RETURN_CODE) to report them as skipped; with a device or driver that fails, the
// program fails with the error (cudasim/gpu_presence.hpp).
#include <gtest/gtest.h>

#include "finished.hpp"
#include "heap.hpp"

#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
#include "cuda/runtime.hpp"
#endif
#if defined(ANDREA_BACKEND_GPU)
#include <cstdio>

#include "cudasim/gpu_presence.hpp"  // presence_in_test: CUDASIM_FAKE_DEVICE_COUNT
#endif

int main(int argc, char** argv) {
  andrea::testing::keep_freed_memory();
  ::testing::InitGoogleTest(&argc, argv);
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
