// assert() in device code: on the CPU layer a failing one fails the launch with
// cudaErrorAssert, and the error names the kernel, the block, the thread and the condition.
// The program goes on (on a GPU a device assert ends the CUDA context: no GPU variant here).
#include <gtest/gtest.h>

#include <cassert>
#include <string>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace {

#if !defined(__CUDACC__)
__global__ void check_non_negative(const int* x, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(x[i] >= 0);
  out[i] = 2 * x[i];
}

TEST(DeviceAssert, AFailureNamesKernelBlockAndThread) {
  std::vector<int> x(64, 1);
  x[32 + 5] = -1;  // block 1, thread 5
  DeviceBuffer<int> d_x(x), d_out(64);
  check_non_negative<<<2, 32>>>(d_x.get(), d_out.get());
  try {
    CHECK_LAUNCH();
    FAIL() << "the launch should have failed";
  } catch (const simtest::CudaError& e) {
    EXPECT_EQ(e.code(), cudaErrorAssert);
    const std::string what = e.what();
    EXPECT_NE(what.find("kernel 'check_non_negative' block (1,0,0) thread (5,0,0): assertion "
                        "'x[i] >= 0' failed at "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("assert_test.cu:"), std::string::npos) << what;
  }
}

TEST(DeviceAssert, TheNextLaunchRunsNormally) {
  DeviceBuffer<int> d_x(std::vector<int>(32, 4)), d_out(32);
  check_non_negative<<<1, 32>>>(d_x.get(), d_out.get());
  CHECK_LAUNCH();
  EXPECT_EQ(d_out.to_host(), std::vector<int>(32, 8));
}
#endif

}  // namespace
