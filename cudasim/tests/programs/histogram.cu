// A 64-bin histogram of bytes read four at a time as uchar4: each block counts into shared
// memory with atomicAdd, then adds its counts into the global histogram. A second kernel keeps
// the positions of the values 0 in a ring buffer of 8 slots with atomicInc (wraps to 0 past
// its limit) and counts down a budget with atomicDec (wraps to its limit at 0), CUDA's
// wrap-around counters. Checked against the host's counts. Exit status 0 when it passes.
#include <cuda_runtime.h>
#include <helper_check.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kBins = 64;

__global__ void histogram64(const uchar4* data, int count4, unsigned* histogram) {
  __shared__ unsigned bins[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count4; i += gridDim.x * blockDim.x) {
    const uchar4 v = data[i];
    atomicAdd(&bins[v.x % kBins], 1u);
    atomicAdd(&bins[v.y % kBins], 1u);
    atomicAdd(&bins[v.z % kBins], 1u);
    atomicAdd(&bins[v.w % kBins], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&histogram[b], bins[b]);
}

__global__ void ringOfZeros(const unsigned char* bytes, int n, unsigned* head, unsigned* budget,
                            unsigned* ring_hits) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && bytes[i] == 0) {
    const unsigned slot = atomicInc(head, 7u);  // 0, 1, ..., 7, 0, 1, ...
    atomicAdd(&ring_hits[slot], 1u);
    atomicDec(budget, 1000u);  // 5, 4, ..., 0, 1000, 999, ...
  }
}

int main() {
  const int n = 4 * 20000;
  std::vector<unsigned char> bytes(n);
  unsigned expected[kBins] = {};
  int zeros = 0;
  for (int i = 0; i < n; ++i) {
    bytes[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    ++expected[bytes[i] % kBins];
    zeros += bytes[i] == 0;
  }
  unsigned char* d_bytes;
  unsigned *d_hist, *d_state, *d_ring;
  checkCudaErrors(cudaMalloc(&d_bytes, n));
  checkCudaErrors(cudaMalloc(&d_hist, kBins * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&d_state, 2 * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&d_ring, 8 * sizeof(unsigned)));
  checkCudaErrors(cudaMemcpy(d_bytes, bytes.data(), n, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_hist, 0, kBins * sizeof(unsigned)));
  checkCudaErrors(cudaMemset(d_ring, 0, 8 * sizeof(unsigned)));
  const unsigned state[2] = {0u, 5u};  // ring head, budget
  checkCudaErrors(cudaMemcpy(d_state, state, sizeof state, cudaMemcpyHostToDevice));

  histogram64<<<30, 128>>>(reinterpret_cast<const uchar4*>(d_bytes), n / 4, d_hist);
  getLastCudaError("histogram64 failed");
  ringOfZeros<<<(n + 255) / 256, 256>>>(d_bytes, n, d_state, d_state + 1, d_ring);
  getLastCudaError("ringOfZeros failed");

  unsigned got[kBins], ring[8], after[2];
  checkCudaErrors(cudaMemcpy(got, d_hist, sizeof got, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(ring, d_ring, sizeof ring, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(after, d_state, sizeof after, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b = 0; b < kBins; ++b) ok = ok && got[b] == expected[b];
  unsigned ring_total = 0;
  for (int s = 0; s < 8; ++s) {
    // zeros / 8 in each slot, one more in the first zeros % 8 (whatever the threads' order).
    ok = ok && ring[s] == static_cast<unsigned>(zeros / 8 + (s < zeros % 8));
    ring_total += ring[s];
  }
  const unsigned head = static_cast<unsigned>(zeros % 8);
  const unsigned budget = zeros <= 5 ? 5u - zeros : 1000u - (zeros - 6) % 1001u;
  ok = ok && ring_total == static_cast<unsigned>(zeros) && after[0] == head && after[1] == budget;
  std::printf("%d bytes, %d zeros: ring head %u (expected %u), budget %u (expected %u)\n", n, zeros,
              after[0], head, after[1], budget);
  checkCudaErrors(cudaFree(d_bytes));
  checkCudaErrors(cudaFree(d_hist));
  checkCudaErrors(cudaFree(d_state));
  checkCudaErrors(cudaFree(d_ring));
  std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
