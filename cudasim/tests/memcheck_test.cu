// Bad memory accesses in a kernel: each is reported like compute-sanitizer's memcheck (kernel,
// block, thread, read or write, size, where the address lies), the launch fails with
// cudaErrorIllegalAddress, and the program goes on. Memory nobody wrote reads as NaN.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace {

using ::testing::HasSubstr;

// The classic bug: no `if (i < n)`, and a grid rounded up past n.
__global__ void fill_unguarded(float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out[i] = static_cast<float>(n);
}

__global__ void copy_unguarded(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = in[i];  // guards out, not in
}

__global__ void copy_shifted(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = in[i - 1];  // thread 0 reads in[-1]
}

__global__ void write_through(float* p) { p[threadIdx.x] = 1.0f; }

__global__ void block_sums(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) atomicAdd(out, in[i]);
}

class Memcheck : public ::testing::Test {
 protected:
  void SetUp() override { cudasim::set_thread_order(cudasim::Order::forward); }
  void TearDown() override { cudasim::set_thread_order(cudasim::Order::forward); }

  // The launch failed with an illegal address, and the story mentions every piece of `parts`.
  static void ExpectIllegalAddress(const std::vector<std::string>& parts) {
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    const std::string detail = cudasim::last_error_detail();
    for (const auto& part : parts) EXPECT_THAT(detail, HasSubstr(part));
    EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // not sticky: the program goes on
  }
};

TEST_F(Memcheck, WritePastTheEnd) {
  DeviceBuffer<float> out(768);  // 3,072 bytes: a multiple of 256, flush against the guard
  fill_unguarded<<<4, 256>>>(out.get(), 768);
  ExpectIllegalAddress(
      {"kernel 'fill_unguarded' block (3,0,0) thread (0,0,0): ", "invalid write of 4 bytes at 0x",
       ", 0 bytes past the end of a 3,072-byte allocation at 0x",
       ", passed as argument 1 'out' at "});
}

TEST_F(Memcheck, WritePastTheEndInReverseOrder) {  // thread 255 of block 3 runs first
  cudasim::set_thread_order(cudasim::Order::reverse);
  DeviceBuffer<float> out(768);
  fill_unguarded<<<4, 256>>>(out.get(), 768);
  ExpectIllegalAddress({"block (3,0,0) thread (255,0,0): invalid write of 4 bytes",
                        "1,020 bytes past the end of a 3,072-byte allocation"});
}

TEST_F(Memcheck, ReadPastTheEnd) {
  DeviceBuffer<float> in(std::vector<float>(1024, 1.0f));  // 4,096 bytes
  DeviceBuffer<float> out(1100);
  copy_unguarded<<<5, 256>>>(in.get(), out.get(), 1100);
  ExpectIllegalAddress(
      {"kernel 'copy_unguarded' block (4,0,0) thread (0,0,0): ", "invalid read of 4 bytes",
       "0 bytes past the end of a 4,096-byte allocation", ", passed as argument 1 'in' at "});
}

TEST_F(Memcheck, ReadBeforeTheStart) {
  DeviceBuffer<float> in(std::vector<float>(1024, 1.0f));  // a whole page: its start is flush too
  DeviceBuffer<float> out(1024);
  copy_shifted<<<4, 256>>>(in.get(), out.get(), 1024);
  ExpectIllegalAddress(
      {"kernel 'copy_shifted' block (0,0,0) thread (0,0,0): ", "invalid read of 4 bytes",
       "4 bytes before the start of a 4,096-byte allocation"});
}

TEST_F(Memcheck, WriteIntoTheAlignmentSlackIsFoundAfterTheKernel) {
  DeviceBuffer<float> out(1000);  // 4,000 bytes: 96 bytes of slack before the guard
  fill_unguarded<<<1, 1001>>>(out.get(), 1000);
  ExpectIllegalAddress({"kernel 'fill_unguarded': invalid write at 0x",
                        "0 bytes past the end of a 4,000-byte allocation at 0x",
                        ", passed as argument 1 'out' (found in the alignment slack",
                        "block and thread are not known"});
  fill_unguarded<<<1, 1000>>>(out.get(), 1000);  // the slack was repainted
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(Memcheck, NullPointer) {
  // 64 bytes past null, as a field of a struct behind a null pointer would be (and out of
  // UBSan's sight, which stops the program at a store to null itself).
  write_through<<<1, 32>>>(reinterpret_cast<float*>(std::uintptr_t{64}));
  ExpectIllegalAddress({"kernel 'write_through' block (0,0,0) thread (0,0,0): invalid write",
                        "at 0x40, a null pointer (plus 64 bytes)"});
}

TEST_F(Memcheck, CudaCheckThrowsTheReport) {
  DeviceBuffer<float> out(768);
  fill_unguarded<<<4, 256>>>(out.get(), 768);
  try {
    CHECK_LAUNCH();
    FAIL() << "no exception";
  } catch (const simtest::CudaError& e) {
    EXPECT_EQ(e.code(), cudaErrorIllegalAddress);
    EXPECT_THAT(e.what(), HasSubstr("cudaErrorIllegalAddress (an illegal memory access was "
                                    "encountered)"));
    EXPECT_THAT(e.what(), HasSubstr("past the end of a 3,072-byte allocation"));
  }
}

// Many faulting launches in a row, on several workers: each fails alone, and a good launch
// afterwards gives the right answer.
TEST_F(Memcheck, TheProgramGoesOnAfterManyFaults) {
  cudasim::set_worker_threads(2);
  DeviceBuffer<float> out(768);
  for (int k = 0; k < 50; ++k) {
    fill_unguarded<<<8, 256>>>(out.get(), 768);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress) << "launch " << k;
    cudaGetLastError();
  }
  fill_unguarded<<<3, 256>>>(out.get(), 7);
  CHECK_LAUNCH();
  for (float v : out.to_host()) ASSERT_EQ(v, 7.0f);
  cudasim::set_worker_threads(0);
}

// Memory nobody wrote: every byte 0xff, every float NaN, so a sum over it is NaN.
TEST_F(Memcheck, UninitialisedReadGivesNaN) {
  DeviceBuffer<float> in(300);  // never written
  DeviceBuffer<float> sum(std::vector<float>{0.0f});
  block_sums<<<2, 256>>>(in.get(), sum.get(), 300);
  CHECK_LAUNCH();
  const float result = sum.to_host()[0];
  EXPECT_TRUE(std::isnan(result)) << "sum of uninitialised memory: " << result;
  std::vector<float> raw = in.to_host();
  std::vector<unsigned char> bytes(raw.size() * sizeof(float));
  std::memcpy(bytes.data(), raw.data(), bytes.size());
  for (unsigned char b : bytes) ASSERT_EQ(b, 0xff);
}

TEST_F(Memcheck, AllocationsStay256ByteAligned) {
  for (std::size_t size : {1u, 100u, 256u, 1000u, 4096u, 5000u, 70000u}) {
    DeviceBuffer<char> d(size);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(d.get()) % 256, 0u) << size;
  }
}

}  // namespace
