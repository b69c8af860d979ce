// How fast cudasim runs barriers: blocks of 256 threads, each doing 8 __syncthreads().
// Reported per worker thread, so the figure does not depend on the machine's core count.
#include <benchmark/benchmark.h>

#include "cuda/runtime.hpp"

namespace {

constexpr unsigned kThreads = 256;
constexpr int kBarriers = 8;

__global__ void eight_barriers(float* out) {
  __shared__ float s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = static_cast<float>(t);
  for (int i = 0; i < kBarriers - 1; ++i) {
    __syncthreads();
    if (t == 0) s[0] += 1.0f;
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[(t + 1) % kThreads];
}

void BM_EightBarriers(benchmark::State& state) {
  const auto workers = static_cast<unsigned>(state.range(0));
  const unsigned blocks = 256;
  cudasim::set_worker_threads(workers);
  float* out = nullptr;
  ANDREA_CUDA_CHECK(cudaMalloc(&out, blocks * kThreads * sizeof(float)));
  for (auto _ : state) {
    eight_barriers<<<blocks, kThreads>>>(out);
    ANDREA_CUDA_CHECK_LAUNCH();
  }
  ANDREA_CUDA_CHECK(cudaFree(out));
  cudasim::set_worker_threads(0);
  const double total = static_cast<double>(state.iterations()) * blocks;
  using benchmark::Counter;
  state.counters["blocks/s/worker"] = Counter(total / workers, Counter::kIsRate);
  state.counters["blocks/s"] = Counter(total, Counter::kIsRate);
}
BENCHMARK(BM_EightBarriers)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
