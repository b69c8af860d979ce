// The memory traffic of the lessons' kernels and of the versions they are compared with, as
// the CPU execution layer's profile counts it (cudasim/README.md, "Measuring a kernel"):
//
//   L01 lookup   one block per token, a thread per float / per float4; one thread per row
//   L02 norm     the block's tree reduction with interleaved addressing (index 2 s tid, Mark
//                Harris's kernel 2) and with sequential addressing (tid + s, his kernel 3)
//   L05 combine  x[t] = wte[ids[t]] + wpe[t], a thread per float / per float4
//   L08 backward the atomic kernel on one repeated id, and the deterministic one
//
//   build/bench/profile_lessons     each launch's report, line by line, then one line per kernel
//
// The same file built by nvcc (profile_lessons_gpu) runs the same launches on a GPU, for
// bench/ncu_compare.sh to measure with Nsight Compute.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cuda/runtime.hpp"
#if !defined(__CUDACC__)
#include "cudasim/tools.hpp"
#endif

namespace {

constexpr int kD = 768;       // d_model
constexpr int kTokens = 256;  // positions looked up
constexpr int kVocab = 8449;  // V
constexpr int kThreads = 256;

// --- L01: lookup.
__global__ void lookup_scalar(const float* wte, const std::int32_t* ids, float* out) {
  const float* src = wte + static_cast<std::int64_t>(ids[blockIdx.x]) * kD;
  for (int c = threadIdx.x; c < kD; c += blockDim.x) out[blockIdx.x * kD + c] = src[c];
}
__global__ void lookup_float4(const float4* wte, const std::int32_t* ids, float4* out) {
  const float4* src = wte + static_cast<std::int64_t>(ids[blockIdx.x]) * (kD / 4);
  for (int c = threadIdx.x; c < kD / 4; c += blockDim.x) out[blockIdx.x * (kD / 4) + c] = src[c];
}
__global__ void lookup_row_per_thread(const float* wte, const std::int32_t* ids, float* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kTokens) return;
  const float* src = wte + static_cast<std::int64_t>(ids[t]) * kD;
  for (int c = 0; c < kD; ++c) out[t * kD + c] = src[c];
}

// --- L02: the sum of squares of each row, reduced in shared memory (floats, 256 threads).
__global__ void norm_interleaved(const float* m, float* out) {
  __shared__ float s[kThreads];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int c = tid; c < kD; c += kThreads) sum += m[blockIdx.x * kD + c] * m[blockIdx.x * kD + c];
  s[tid] = sum;
  __syncthreads();
  for (unsigned stride = 1; stride < kThreads; stride *= 2) {
    const unsigned index = 2 * stride * tid;  // threads 0, 1, 2, ... on words 0, 2s, 4s, ...
    if (index < kThreads) s[index] += s[index + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sqrtf(s[0]);
}
__global__ void norm_sequential(const float* m, float* out) {
  __shared__ float s[kThreads];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int c = tid; c < kD; c += kThreads) sum += m[blockIdx.x * kD + c] * m[blockIdx.x * kD + c];
  s[tid] = sum;
  __syncthreads();
  for (unsigned stride = kThreads / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];  // consecutive threads, consecutive words
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sqrtf(s[0]);
}

// --- L05: combine, a thread per float (the graded rung), then a float4 per thread.
__global__ void combine_scalar(const float* wte, const float* wpe, const std::int32_t* ids,
                               float* out) {
  const float* w = wte + static_cast<std::int64_t>(ids[blockIdx.x]) * kD;
  const float* p = wpe + static_cast<std::int64_t>(blockIdx.x) * kD;
  for (int c = threadIdx.x; c < kD; c += blockDim.x) out[blockIdx.x * kD + c] = w[c] + p[c];
}
__global__ void combine_float4(const float4* wte, const float4* wpe, const std::int32_t* ids,
                               float4* out) {
  const float4* w = wte + static_cast<std::int64_t>(ids[blockIdx.x]) * (kD / 4);
  const float4* p = wpe + static_cast<std::int64_t>(blockIdx.x) * (kD / 4);
  for (int c = threadIdx.x; c < kD / 4; c += blockDim.x) {
    const float4 a = w[c], b = p[c];
    out[blockIdx.x * (kD / 4) + c] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}

// --- L08: dwte from dout, every position holding the same id.
__global__ void backward_atomic(const float* dout, const std::int32_t* ids, float* dwte) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<std::int64_t>(kTokens) * kD) return;
  atomicAdd(&dwte[static_cast<std::int64_t>(ids[i / kD]) * kD + i % kD], dout[i]);
}
// One thread per element of the id's row, adding the positions in order (positions: the
// positions of that id, here all of them).
__global__ void backward_deterministic(const float* dout, const std::int32_t* positions, int count,
                                       std::int32_t id, float* dwte) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= kD) return;
  float acc = dwte[static_cast<std::int64_t>(id) * kD + c];
  for (int k = 0; k < count; ++k) acc += dout[static_cast<std::int64_t>(positions[k]) * kD + c];
  dwte[static_cast<std::int64_t>(id) * kD + c] = acc;
}

template <class T>
T* device(const std::vector<T>& host) {
  T* p = nullptr;
  ANDREA_CUDA_CHECK(cudaMalloc(&p, host.size() * sizeof(T)));
  ANDREA_CUDA_CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

#if !defined(__CUDACC__)
std::vector<std::pair<std::string, cudasim::LaunchProfile>> g_kernels;
void print_report(const std::string& report) { std::printf("%s\n", report.c_str()); }
void summary(const char* lesson, const char* what) {
  g_kernels.push_back({std::string(lesson) + " " + what, cudasim::last_profile()});
}
void print_summary() {
  std::printf("%-29s %8s %9s %6s %9s %6s %8s %12s %12s\n", "kernel", "ld req", "ld sect", "s/req",
              "bank cnf", "way", "atom max", "DRAM bytes", "ideal bytes");
  for (const auto& [name, p] : g_kernels) {
    const cudasim::AccessCounts& ld = p.global_load;
    std::printf(
        "%-29s %8llu %9llu %6.1f %9llu %6llu %8llu %12llu %12llu\n", name.c_str(),
        static_cast<unsigned long long>(ld.requests), static_cast<unsigned long long>(ld.sectors),
        ld.requests ? double(ld.sectors) / double(ld.requests) : 0.0,
        static_cast<unsigned long long>(p.shared_load.bank_conflicts +
                                        p.shared_store.bank_conflicts),
        static_cast<unsigned long long>(std::max(p.shared_load.max_way, p.shared_store.max_way)),
        static_cast<unsigned long long>(p.most_contended),
        static_cast<unsigned long long>(p.dram_bytes_read + p.dram_bytes_written),
        static_cast<unsigned long long>(p.ideal_bytes));
  }
}
#define SUMMARY(lesson, what) summary(lesson, what)
#else
#define SUMMARY(lesson, what) static_cast<void>(0)
#endif

}  // namespace

int main() {
#if !defined(__CUDACC__)
  cudasim::set_profile_sink(print_report);
  cudasim::set_tools(cudasim::profile);
#endif
  std::vector<float> wte(static_cast<std::size_t>(kVocab) * kD), dout(kTokens * kD, 1.0f);
  for (std::size_t i = 0; i < wte.size(); ++i) wte[i] = static_cast<float>(i % 97) * 0.01f;
  std::vector<std::int32_t> ids(kTokens), same(kTokens, 42), positions(kTokens);
  for (int t = 0; t < kTokens; ++t) ids[t] = (t * 37) % kVocab, positions[t] = t;
  float* d_wte = device(wte);
  float* d_wpe = device(std::vector<float>(wte.begin(), wte.begin() + kTokens * kD));
  float* d_out = device(std::vector<float>(kTokens * kD, 0.0f));
  float* d_dout = device(dout);
  float* d_dwte = device(std::vector<float>(wte.size(), 0.0f));
  std::int32_t* d_ids = device(ids);
  std::int32_t* d_same = device(same);
  std::int32_t* d_positions = device(positions);

  lookup_scalar<<<kTokens, kThreads>>>(d_wte, d_ids, d_out);
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L01", "lookup_scalar");
  lookup_float4<<<kTokens, kD / 4>>>(reinterpret_cast<const float4*>(d_wte), d_ids,
                                     reinterpret_cast<float4*>(d_out));
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L01", "lookup_float4");
  lookup_row_per_thread<<<(kTokens + 127) / 128, 128>>>(d_wte, d_ids, d_out);
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L01", "lookup_row_per_thread");
  norm_interleaved<<<kTokens, kThreads>>>(d_wpe, d_out);
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L02", "norm_interleaved");
  norm_sequential<<<kTokens, kThreads>>>(d_wpe, d_out);
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L02", "norm_sequential");
  combine_scalar<<<kTokens, kThreads>>>(d_wte, d_wpe, d_ids, d_out);
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L05", "combine_scalar");
  combine_float4<<<kTokens, kD / 4>>>(reinterpret_cast<const float4*>(d_wte),
                                      reinterpret_cast<const float4*>(d_wpe), d_ids,
                                      reinterpret_cast<float4*>(d_out));
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L05", "combine_float4");
  backward_atomic<<<kTokens * kD / kThreads, kThreads>>>(d_dout, d_same, d_dwte);
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L08", "backward_atomic");
  backward_deterministic<<<kD / kThreads, kThreads>>>(d_dout, d_positions, kTokens, 42, d_dwte);
  ANDREA_CUDA_CHECK_LAUNCH();
  SUMMARY("L08", "backward_deterministic");

  for (void* p : {static_cast<void*>(d_wte), static_cast<void*>(d_wpe), static_cast<void*>(d_out),
                  static_cast<void*>(d_dout), static_cast<void*>(d_dwte), static_cast<void*>(d_ids),
                  static_cast<void*>(d_same), static_cast<void*>(d_positions)}) {
    cudaFree(p);
  }
#if !defined(__CUDACC__)
  print_summary();
#endif
  return 0;
}
