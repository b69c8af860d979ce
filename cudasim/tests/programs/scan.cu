// Prefix sum (exclusive scan) of a large array in three launches, as in GPU Gems 3, ch. 39:
// each block scans its 512 elements in shared memory with the work-efficient up-sweep and
// down-sweep of Blelloch, writing its total; one block scans the totals; a third kernel adds
// each block's offset. Checked against the host's scan. Exit status 0 when it passes.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err = (call);                                                                      \
    if (err != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err)); \
      std::exit(EXIT_FAILURE);                                                                     \
    }                                                                                              \
  } while (0)

constexpr int kThreads = 256;
constexpr int kTile = 2 * kThreads;  // elements scanned by one block

/// Exclusive scan of each block's kTile elements of `in` into `out`; the block's total into
/// sums[blockIdx.x] (if sums is not null). Elements past n count as 0.
__global__ void scanBlocks(const int* in, int* out, int* sums, int n) {
  __shared__ int temp[kTile];
  const int tid = threadIdx.x, base = blockIdx.x * kTile;
  temp[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0;
  temp[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0;
  int offset = 1;
  for (int d = kTile >> 1; d > 0; d >>= 1) {  // up-sweep: partial sums up a tree
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (tid == 0) {
    if (sums != nullptr) sums[blockIdx.x] = temp[kTile - 1];
    temp[kTile - 1] = 0;
  }
  for (int d = 1; d < kTile; d *= 2) {  // down-sweep: each node passes its prefix down
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      const int t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = temp[2 * tid];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

__global__ void addOffsets(int* out, const int* offsets, int n) {
  const int i = blockIdx.x * kTile + threadIdx.x;
  if (i < n) out[i] += offsets[blockIdx.x];
  if (i + kThreads < n) out[i + kThreads] += offsets[blockIdx.x];
}

int main() {
  const int n = 100000;  // 196 tiles: their totals fit one block's scan
  const int blocks = (n + kTile - 1) / kTile;
  std::vector<int> in(n), expected(n), got(n);
  for (int i = 0, running = 0; i < n; ++i) {
    in[i] = (i * 37) % 11 - 3;
    expected[i] = running;
    running += in[i];
  }
  int *d_in, *d_out, *d_sums, *d_offsets;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_offsets, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  scanBlocks<<<blocks, kThreads>>>(d_in, d_out, d_sums, n);
  CHECK(cudaGetLastError());
  scanBlocks<<<1, kThreads>>>(d_sums, d_offsets, nullptr, blocks);
  CHECK(cudaGetLastError());
  addOffsets<<<blocks, kThreads>>>(d_out, d_offsets, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    if (got[i] != expected[i]) {
      std::printf("Test FAILED: element %d is %d, expected %d\n", i, got[i], expected[i]);
      return EXIT_FAILURE;
    }
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_offsets));
  std::printf("scan of %d elements: Test PASSED\n", n);
  return EXIT_SUCCESS;
}
