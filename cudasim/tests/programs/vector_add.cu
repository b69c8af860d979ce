// Vector addition, C = A + B, in the style of CUDA's first sample: one thread per element, a
// grid rounded up to whole blocks, checkCudaErrors around every runtime call, and a check of
// every element against the host's sum. Exit status 0 when it passes.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <helper_check.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#if CUDART_VERSION < 11000
#error "this program needs CUDA 11 or later"
#endif

__global__ void vectorAdd(const float* A, const float* B, float* C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) {
    C[i] = A[i] + B[i] + 0.0f;
  }
}

int main() {
  findCudaDevice();
  const int numElements = 50000;
  const size_t size = numElements * sizeof(float);
  std::vector<float> h_A(numElements), h_B(numElements), h_C(numElements);
  for (int i = 0; i < numElements; ++i) {
    h_A[i] = static_cast<float>(i % 1000) / 7.0f;
    h_B[i] = static_cast<float>((i * 31) % 977) / 3.0f;
  }
  float *d_A = nullptr, *d_B = nullptr, *d_C = nullptr;
  checkCudaErrors(cudaMalloc(&d_A, size));
  checkCudaErrors(cudaMalloc(&d_B, size));
  checkCudaErrors(cudaMalloc(&d_C, size));
  checkCudaErrors(cudaMemcpy(d_A, h_A.data(), size, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_B, h_B.data(), size, cudaMemcpyHostToDevice));

  const int threadsPerBlock = 256;
  const int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  std::printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
  checkCudaErrors(cudaProfilerStart());
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  getLastCudaError("vectorAdd kernel failed");
  checkCudaErrors(cudaDeviceSynchronize());
  checkCudaErrors(cudaProfilerStop());
  checkCudaErrors(cudaMemcpy(h_C.data(), d_C, size, cudaMemcpyDeviceToHost));

  for (int i = 0; i < numElements; ++i) {
    if (std::fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5f) {
      std::fprintf(stderr, "Result verification failed at element %d: %f != %f + %f\n", i, h_C[i],
                   h_A[i], h_B[i]);
      return EXIT_FAILURE;
    }
  }
  // A bad copy is reported with CUDA's own code and words, and the next call succeeds again. The
  // copy's sizes are valid (the same size bytes as above): only its direction is not one of
  // cudaMemcpyKind's, which cudaMemcpy documents as cudaErrorInvalidMemcpyDirection, so the check
  // holds on a GPU too and nothing is read or written. (A copy past an allocation is the layer's
  // own check, tested by cudasim/tests/api_test.cu: on a GPU it is undefined behaviour.)
  const cudaError_t bad =
      cudaMemcpy(d_C, h_C.data(), size, static_cast<cudaMemcpyKind>(cudaMemcpyDefault + 38));
#if defined(__CUDACC__)
  const bool worded = std::string(cudaGetErrorString(bad)).size() > 0;  // the driver's own words
#else
  const bool worded = std::string(cudaGetErrorString(bad)) == "invalid copy direction for memcpy";
#endif
  const bool named = bad == cudaErrorInvalidMemcpyDirection && worded &&
                     std::string(cudaGetErrorName(bad)) == "cudaErrorInvalidMemcpyDirection";
  (void)cudaGetLastError();
  if (!named) {
    std::fprintf(
        stderr,
        "a copy of direction %d gave %d (%s: %s), expected cudaErrorInvalidMemcpyDirection\n",
        static_cast<int>(cudaMemcpyDefault + 38), bad, cudaGetErrorName(bad),
        cudaGetErrorString(bad));
    return EXIT_FAILURE;
  }
  checkCudaErrors(cudaMemcpy(h_C.data(), d_C, size, cudaMemcpyDeviceToHost));  // and copies work
  checkCudaErrors(cudaFree(d_A));
  checkCudaErrors(cudaFree(d_B));
  checkCudaErrors(cudaFree(d_C));
  std::printf("Test PASSED\n");
  return EXIT_SUCCESS;
}
