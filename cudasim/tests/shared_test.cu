// Shared memory: `extern __shared__` sized at launch, `static __shared__`, and (CPU layer only)
// shared memory that starts every block as 0xff bytes, so an unwritten value reads as NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "check.cuh"
#include "shared_memory.cuh"

using simtest::DeviceBuffer;

// Every extern __shared__ array of a kernel starts at the same address (see views_alias).
extern __shared__ unsigned file_scope_words[];

namespace {

// One sum per block; the block size (a power of 2) is whatever the launch says, and so is the
// size of `partial`: blockDim.x floats.
__global__ void block_sums(const float* in, float* out) {
  extern __shared__ float partial[];
  const unsigned tid = threadIdx.x;
  partial[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 0; active /= 2) {
    if (tid < active) partial[tid] += partial[tid + active];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

__global__ void views_alias(unsigned* out) {
  extern __shared__ float floats[];
  floats[threadIdx.x] = 1.0f + static_cast<float>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = file_scope_words[threadIdx.x];
}

__global__ void reverse_warp(const int* in, int* out) {
  static __shared__ int s[32];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
}

TEST(SharedMemory, DynamicSharedReductionEqualsTheSum) {
  for (unsigned threads : {32u, 128u, 512u}) {
    const unsigned blocks = 3;
    std::vector<float> in(blocks * threads);
    std::iota(in.begin(), in.end(), 1.0f);  // small integers: float sums are exact
    DeviceBuffer<float> d_in(in), d_out(blocks);
    block_sums<<<blocks, threads, threads * sizeof(float)>>>(d_in.get(), d_out.get());
    CHECK_LAUNCH();
    const auto out = d_out.to_host();
    for (unsigned b = 0; b < blocks; ++b) {
      const double first = b * threads + 1.0, last = (b + 1.0) * threads;
      EXPECT_EQ(out[b], (first + last) * threads / 2) << threads << " threads, block " << b;
    }
  }
}

TEST(SharedMemory, AllExternSharedArraysStartAtTheSameAddress) {
  DeviceBuffer<unsigned> d_out(64);
  views_alias<<<1, 64, 64 * sizeof(float)>>>(d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned i = 0; i < 64; ++i) {
    const float f = 1.0f + static_cast<float>(i);
    unsigned bits;
    std::memcpy(&bits, &f, sizeof bits);
    EXPECT_EQ(out[i], bits) << i;
  }
}

TEST(SharedMemory, StaticSharedArray) {
  std::vector<int> in(32);
  std::iota(in.begin(), in.end(), 100);
  DeviceBuffer<int> d_in(in), d_out(32);
  reverse_warp<<<1, 32>>>(d_in.get(), d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], 131 - i);
}

#if !defined(__CUDACC__)
// Thread 0 of each block reads before anyone writes; then the block writes. The next block
// must find 0xff bytes again (a NaN), not the previous block's values.
__global__ void read_before_write(float* out) {
  __shared__ float fixed[64];
  extern __shared__ float dynamic[];
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = fixed[5];
    out[2 * blockIdx.x + 1] = dynamic[5];
  }
  __syncthreads();
  fixed[threadIdx.x] = 1.0f;
  dynamic[threadIdx.x] = 2.0f;
}

TEST(SharedMemory, EveryBlockStartsWithNaNs) {
  cudasim::set_worker_threads(1);  // one worker: every block reuses the same shared memory
  DeviceBuffer<float> d_out(8);
  read_before_write<<<4, 64, 64 * sizeof(float)>>>(d_out.get());
  CHECK_LAUNCH();
  cudasim::set_worker_threads(0);
  for (float v : d_out.to_host()) EXPECT_TRUE(std::isnan(v)) << v;
}
#endif

// One sum per block of blockDim.x values (a power of 2), as the samples' reduce0.
template <class T>
__global__ void sample_reduce(const T* in, T* out) {
  T* sdata = SharedMemory<T>();
  const unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

template <class T>
void check_sample_reduce() {
  const unsigned blocks = 3, threads = 128;
  std::vector<T> in(blocks * threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<T>(i % 50);
  DeviceBuffer<T> d_in(in), d_out(blocks);
  sample_reduce<T><<<blocks, threads, threads * sizeof(T)>>>(d_in.get(), d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned b = 0; b < blocks; ++b) {
    T sum = 0;
    for (unsigned i = b * threads; i < (b + 1) * threads; ++i) sum += in[i];
    EXPECT_EQ(out[b], sum) << "block " << b;
  }
}

TEST(SharedMemory, TheSamplesSharedMemoryIdiomForIntFloatAndDouble) {
  check_sample_reduce<int>();
  check_sample_reduce<float>();
  check_sample_reduce<double>();
  // By hand: 128 twos sum to 256.
  DeviceBuffer<int> d_in(std::vector<int>(128, 2)), d_out(1);
  sample_reduce<int><<<1, 128, 128 * sizeof(int)>>>(d_in.get(), d_out.get());
  CHECK_LAUNCH();
  EXPECT_EQ(d_out.to_host()[0], 256);
}

// extern __shared__ arrays in two functions of one file, a device function and the kernel that
// calls it: both name the same bytes.
__device__ unsigned read_back(unsigned i) {
  extern __shared__ unsigned words[];
  return words[i];
}

__global__ void write_then_read_back(unsigned* out) {
  extern __shared__ unsigned char bytes[];
  reinterpret_cast<unsigned*>(bytes)[threadIdx.x] = 1000u + threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = read_back(blockDim.x - 1 - threadIdx.x);
}

TEST(SharedMemory, ExternSharedInTwoFunctionsOfOneFileIsOneArray) {
  DeviceBuffer<unsigned> d_out(64);
  write_then_read_back<<<1, 64, 64 * sizeof(unsigned)>>>(d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(out[t], 1000u + 63 - t) << t;
}

}  // namespace
