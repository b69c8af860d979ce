// The test entry point. For the GPU backend, every test is skipped, with the
// reason shown, when no usable CUDA device is present.
#include <gtest/gtest.h>

#if defined(ANDREA_BACKEND_GPU)
#include <string>

#include "cuda/device.hpp"

namespace {

class RequireGpu : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string reason;
    if (!andrea::cuda::device_available(&reason)) GTEST_SKIP() << reason;
  }
};

}  // namespace
#endif

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
#if defined(ANDREA_BACKEND_GPU)
  ::testing::AddGlobalTestEnvironment(new RequireGpu);
#endif
  return RUN_ALL_TESTS();
}
