// The host half of the transpose program: a .cpp file, compiled as host C++ (by nvcc's host
// compiler, or by nvcc-cpu as it is), calling the device code of transpose.cu. Transposes a
// 100 x 70 matrix (not a whole number of 32 x 32 tiles) and checks every element. Exit status
// 0 when it passes.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "transpose.h"

int main() {
  const int rows = 100, cols = 70;
  std::vector<float> in(rows * cols), out(rows * cols, -1.0f);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) in[r * cols + c] = static_cast<float>(r * 1000 + c);
  }
  transposeOnDevice(in.data(), out.data(), rows, cols);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (out[c * rows + r] != in[r * cols + c]) {
        std::printf("Test FAILED: out[%d][%d] = %.0f, expected %.0f\n", c, r, out[c * rows + r],
                    in[r * cols + c]);
        return EXIT_FAILURE;
      }
    }
  }
  std::printf("transpose %d x %d: Test PASSED\n", rows, cols);
  return EXIT_SUCCESS;
}
