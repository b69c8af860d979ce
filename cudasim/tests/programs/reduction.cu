// Parallel reduction: sums of ints and of doubles by the template kernels of
// reduction_kernels.cuh, partial sums per block reduced again until one is left, checked
// against the host's exact sums. Exit status 0 when it passes.
#include <helper_check.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "reduction_kernels.cuh"

template <class T, unsigned threads>
T deviceSum(const std::vector<T>& host) {
  unsigned n = static_cast<unsigned>(host.size());
  T *d_a = nullptr, *d_b = nullptr;
  checkCudaErrors(cudaMalloc(&d_a, n * sizeof(T)));
  checkCudaErrors(cudaMalloc(&d_b, n * sizeof(T)));
  checkCudaErrors(cudaMemcpy(d_a, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  while (n > 1) {
    n = reducePartial<T, threads>(d_a, d_b, n);
    getLastCudaError("reduce4 failed");
    T* t = d_a;
    d_a = d_b;
    d_b = t;
  }
  T sum;
  checkCudaErrors(cudaMemcpy(&sum, d_a, sizeof(T), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_a));
  checkCudaErrors(cudaFree(d_b));
  return sum;
}

int main() {
  const unsigned n = (1u << 16) + 123;  // not a whole number of blocks
  std::vector<int> ints(n);
  std::vector<double> doubles(n);
  long long int_sum = 0;
  double double_sum = 0;
  for (unsigned i = 0; i < n; ++i) {
    ints[i] = static_cast<int>((i * 7919u) % 201u) - 100;
    doubles[i] =
        0.25 * static_cast<double>(i % 64);  // exact in binary: any order gives the same sum
    int_sum += ints[i];
    double_sum += doubles[i];
  }
  const int got_int = deviceSum<int, 256>(ints);
  const double got_double = deviceSum<double, 128>(doubles);
  std::printf("int sum %d (expected %lld), double sum %.2f (expected %.2f)\n", got_int, int_sum,
              got_double, double_sum);
  if (got_int != int_sum || got_double != double_sum) {
    std::printf("Test FAILED\n");
    return EXIT_FAILURE;
  }
  std::printf("Test PASSED\n");
  return EXIT_SUCCESS;
}
