// Warp-level primitives: votes (__ballot_sync, __any_sync, __all_sync, __popc of a ballot),
// a warp sum by __shfl_xor_sync (every lane gets it), an inclusive warp scan by
// __shfl_up_sync, and a broadcast by __shfl_sync. Each warp writes what it found; the host
// works out the same from the inputs. Exit status 0 when it passes.
#include <cuda_runtime.h>
#include <helper_check.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr unsigned FULL = 0xffffffffu;

struct WarpResult {
  unsigned ballot;  // bit l: lane l's value is odd
  int any_negative, all_small, odd_count;
  int sum, lane0;
};

__global__ void warpVotes(const int* in, WarpResult* results, int* scans) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % warpSize, warp = i / warpSize;
  const int v = in[i];
  const unsigned odd = __ballot_sync(FULL, v & 1);
  const int any_negative = __any_sync(FULL, v < 0);
  const int all_small = __all_sync(FULL, v < 100 && v > -100);
  int sum = v;
  for (int mask = warpSize / 2; mask > 0; mask /= 2) sum += __shfl_xor_sync(FULL, sum, mask);
  int scan = v;
  for (int delta = 1; delta < warpSize; delta *= 2) {
    const int up = __shfl_up_sync(FULL, scan, delta);
    if (lane >= delta) scan += up;
  }
  const int lane0 = __shfl_sync(FULL, v, 0);
  scans[i] = scan;
  if (lane == 0) results[warp] = {odd, any_negative, all_small, __popc(odd), sum, lane0};
}

int main() {
  const int warps = 16, n = warps * 32;
  std::vector<int> in(n), scans(n);
  for (int i = 0; i < n; ++i)
    in[i] = (i * 37) % 97 - (i / 32 % 3 == 0 ? 20 : 0) - (i == 100 ? 500 : 0);
  int *d_in, *d_scans;
  WarpResult* d_results;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_scans, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_results, warps * sizeof(WarpResult)));
  checkCudaErrors(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  warpVotes<<<n / 128, 128>>>(d_in, d_results, d_scans);
  getLastCudaError("warpVotes failed");
  std::vector<WarpResult> results(warps);
  checkCudaErrors(
      cudaMemcpy(results.data(), d_results, warps * sizeof(WarpResult), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(scans.data(), d_scans, n * sizeof(int), cudaMemcpyDeviceToHost));
  int failures = 0;
  for (int w = 0; w < warps; ++w) {
    WarpResult e{0u, 0, 1, 0, 0, in[w * 32]};
    for (int l = 0, running = 0; l < 32; ++l) {
      const int v = in[w * 32 + l];
      e.ballot |= static_cast<unsigned>(v & 1) << l;
      e.any_negative |= v < 0;
      e.all_small &= v < 100 && v > -100;
      e.odd_count += v & 1;
      e.sum += v;
      running += v;
      failures += scans[w * 32 + l] != running;
    }
    const WarpResult& g = results[w];
    if (g.ballot != e.ballot || g.any_negative != e.any_negative || g.all_small != e.all_small ||
        g.odd_count != e.odd_count || g.sum != e.sum || g.lane0 != e.lane0) {
      std::printf(
          "warp %d: ballot %08x any %d all %d popc %d sum %d lane0 %d, expected "
          "%08x %d %d %d %d %d\n",
          w, g.ballot, g.any_negative, g.all_small, g.odd_count, g.sum, g.lane0, e.ballot,
          e.any_negative, e.all_small, e.odd_count, e.sum, e.lane0);
      ++failures;
    }
  }
  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_scans));
  checkCudaErrors(cudaFree(d_results));
  std::printf(failures == 0 ? "Test PASSED\n" : "Test FAILED\n");
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
