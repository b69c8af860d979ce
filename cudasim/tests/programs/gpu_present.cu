// Exit status 0 if a CUDA device is present, else 77 (ctest: skipped): the nvcc build of the
// programs runs only where a GPU can run it.
#include <cuda_runtime.h>

int main() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0 ? 0 : 77;
}
