// The layer's tools (cudasim/tools) on access patterns whose answers are worked by hand: the
// profile's requests, sectors and bank conflicts, racecheck's hazards, initcheck, and memcheck's
// first out-of-bounds access at its line. One warp or two, so that each figure can be counted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "check.cuh"
#include "cudasim/tools.hpp"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

// This file as the reports name it: relative to the top-level source folder (the build defines
// it: "cudasim/tests/tools_test.cu" inside a project, "tests/tools_test.cu" on its own).
const std::string kFile = TOOLS_TEST_FILE;

// A cudaMalloc'ed array of n floats, filled with 0, 1, 2, ... (so that every byte is written).
struct Floats {
  float* ptr = nullptr;
  explicit Floats(std::size_t n, bool fill = true) {
    EXPECT_EQ(cudaMalloc(&ptr, n * sizeof(float)), cudaSuccess);
    if (!fill) return;
    std::vector<float> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
    EXPECT_EQ(cudaMemcpy(ptr, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  }
  Floats(const Floats&) = delete;
  Floats& operator=(const Floats&) = delete;
  ~Floats() { cudaFree(ptr); }
};

// Runs with `tools` on, then turns them off again; returns the launch's error detail.
template <class Launch>
std::string run_with(unsigned tools, Launch launch) {
  cudasim::set_tools(tools);
  launch();
  const cudaError_t error = cudaDeviceSynchronize();
  cudasim::set_tools(0);
  cudaGetLastError();
  return error == cudaSuccess ? std::string() : cudasim::last_error_detail();
}

int line_of(const std::string& text, const std::string& file_and_colon) {
  const auto at = text.find(file_and_colon);
  return at == std::string::npos ? -1 : std::stoi(text.substr(at + file_and_colon.size()));
}

// --- profile: global memory. One warp reads in[lane * stride]: a float4 or a float each.
__global__ void strided_read(const float* in, float* out, int stride) {
  out[threadIdx.x] = in[threadIdx.x * stride];
}
__global__ void float4_read(const float4* in, float4* out) { out[threadIdx.x] = in[threadIdx.x]; }
// g++ loads and stores these float4s a float at a time: still one request each, as with nvcc.
__global__ void float4_add(const float4* a, const float4* b, float4* out) {
  const float4 x = a[threadIdx.x], y = b[threadIdx.x];
  out[threadIdx.x] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}
__global__ void broadcast_read(const float* in, float* out) { out[threadIdx.x] = in[0]; }

TEST(Profile, StridedLoadsTouchOneSectorPerEightFloats) {
  // 32 lanes x 4 bytes: stride 1 -> 128 contiguous bytes = 4 sectors of 32 bytes; stride 2 ->
  // 8 sectors, half of each used; stride 8 and 32 -> every lane in a sector of its own.
  const int strides[] = {1, 2, 8, 32};
  const std::uint64_t sectors[] = {4, 8, 32, 32};
  Floats in(32 * 32), out(32);
  for (int i = 0; i < 4; ++i) {
    run_with(cudasim::profile, [&] { strided_read<<<1, 32>>>(in.ptr, out.ptr, strides[i]); });
    const cudasim::LaunchProfile p = cudasim::last_profile();
    EXPECT_EQ(p.global_load.requests, 1u) << "stride " << strides[i];
    EXPECT_EQ(p.global_load.sectors, sectors[i]) << "stride " << strides[i];
    EXPECT_EQ(p.global_load.bytes, 128u);
    EXPECT_EQ(p.global_load.needed, 4u);  // the fewest sectors that hold 128 distinct bytes
    EXPECT_EQ(p.global_load.lane_stride, 4 * strides[i]);
    EXPECT_EQ(p.global_store.requests, 1u);
    EXPECT_EQ(p.global_store.sectors, 4u);  // out[lane]: 128 contiguous bytes
    EXPECT_EQ(p.dram_bytes_read, sectors[i] * 32);
    EXPECT_EQ(p.dram_bytes_written, 128u);
    EXPECT_EQ(p.ideal_bytes, 256u);
  }
}

TEST(Profile, Float4LoadsAreSixteenSectorsPerRequest) {
  Floats in(4 * 32), out(4 * 32);
  run_with(cudasim::profile, [&] {
    float4_read<<<1, 32>>>(reinterpret_cast<const float4*>(in.ptr),
                           reinterpret_cast<float4*>(out.ptr));
  });
  const cudasim::LaunchProfile p = cudasim::last_profile();
  EXPECT_EQ(p.global_load.requests, 1u);
  EXPECT_EQ(p.global_load.sectors, 16u);  // 32 lanes x 16 bytes = 512 bytes
  EXPECT_EQ(p.global_load.bytes, 512u);
  EXPECT_EQ(p.global_load.needed, 16u);
  EXPECT_EQ(p.global_load.lane_stride, 16);
  Floats b(4 * 32);
  run_with(cudasim::profile, [&] {
    float4_add<<<1, 32>>>(reinterpret_cast<const float4*>(in.ptr),
                          reinterpret_cast<const float4*>(b.ptr),
                          reinterpret_cast<float4*>(out.ptr));
  });
  const cudasim::LaunchProfile q = cudasim::last_profile();
  EXPECT_EQ(q.global_load.requests, 2u);
  EXPECT_EQ(q.global_load.sectors, 32u);
  EXPECT_EQ(q.global_store.requests, 1u);
  EXPECT_EQ(q.global_store.sectors, 16u);
}

TEST(Profile, ABroadcastIsOneSector) {
  Floats in(32), out(32);
  run_with(cudasim::profile, [&] { broadcast_read<<<1, 32>>>(in.ptr, out.ptr); });
  const cudasim::LaunchProfile p = cudasim::last_profile();
  EXPECT_EQ(p.global_load.requests, 1u);
  EXPECT_EQ(p.global_load.sectors, 1u);
  EXPECT_EQ(p.global_load.needed, 1u);  // 4 distinct bytes
  EXPECT_EQ(p.global_load.lane_stride, 0);
  EXPECT_EQ(p.dram_bytes_read, 32u);
}

TEST(Profile, TheLaunchesOfACallAreKeptInOrderWithTheirSummary) {
  Floats in(32 * 32), out(32);
  cudasim::take_profiles();
  run_with(cudasim::profile, [&] {
    strided_read<<<1, 32>>>(in.ptr, out.ptr, 1);
    strided_read<<<1, 32>>>(in.ptr, out.ptr, 32);
  });
  const std::vector<cudasim::LaunchProfile> launches = cudasim::take_profiles();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].global_load.sectors, 4u);
  EXPECT_EQ(launches[1].global_load.sectors, 32u);
  EXPECT_TRUE(cudasim::take_profiles().empty());
  // One load and one store a launch. 32 lanes 128 bytes apart: 32 + 4 sectors where 4 + 4 would
  // do, 36 x 32 bytes through L1 where each byte once is 128 + 128.
  EXPECT_EQ(cudasim::summary(launches[1]),
            "global 2 requests at 18.0 sectors each (4.0 would do); 1,152 bytes moved (each byte "
            "once: 256): at least 0.2 ns on H200, 0.6 ns on A100, 3.6 ns on T4");
  EXPECT_EQ(cudasim::summary(launches[0]),
            "global 2 requests at 4.0 sectors each (4.0 would do); 256 bytes moved (each byte "
            "once: 256): at least 0.1 ns on H200, 0.1 ns on A100, 0.8 ns on T4");
}

TEST(Profile, EachWarpMakesItsOwnRequest) {
  // 64 threads are 2 warps: 2 requests of 4 sectors each.
  Floats in(64), out(64);
  run_with(cudasim::profile, [&] { strided_read<<<1, 64>>>(in.ptr, out.ptr, 1); });
  EXPECT_EQ(cudasim::last_profile().global_load.requests, 2u);
  EXPECT_EQ(cudasim::last_profile().global_load.sectors, 8u);
}

// --- profile: shared memory, 32 banks of 4 bytes. Lane l reads s[l * stride].
__global__ void shared_stride(float* out, int stride) {
  __shared__ float s[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += 32) s[i] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x * stride];
}

TEST(Profile, BankConflictsAndThePaddingThatRemovesThem) {
  // stride 1: 32 banks, one word each. stride 2: words 0, 2, ..., 62 -> banks 0, 2, ..., 30
  // twice: 2-way. stride 32: every lane in bank 0: 32-way. stride 33 (a 32x32 tile padded to
  // 33 columns): bank (33 l) mod 32 = l, conflict-free again.
  const int strides[] = {1, 2, 32, 33};
  const std::uint64_t way[] = {1, 2, 32, 1};
  Floats out(32);
  for (int i = 0; i < 4; ++i) {
    run_with(cudasim::profile, [&] { shared_stride<<<1, 32>>>(out.ptr, strides[i]); });
    const cudasim::AccessCounts ld = cudasim::last_profile().shared_load;
    EXPECT_EQ(ld.requests, 1u) << "stride " << strides[i];
    EXPECT_EQ(ld.wavefronts, way[i]) << "stride " << strides[i];
    EXPECT_EQ(ld.max_way, way[i]) << "stride " << strides[i];
    EXPECT_EQ(ld.bank_conflicts, way[i] - 1) << "stride " << strides[i];
    // The fill: lane l writes s[l + 32 k], 33 requests, each conflict-free.
    EXPECT_EQ(cudasim::last_profile().shared_store.requests, 33u);
    EXPECT_EQ(cudasim::last_profile().shared_store.bank_conflicts, 0u);
  }
}

// 8-byte words are served a half-warp at a time: 32 consecutive doubles are 2 wavefronts, no
// conflict (a reduction of doubles in shared memory).
__global__ void shared_doubles(double* out) {
  __shared__ double s[32];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
}

TEST(Profile, ConsecutiveDoublesAreTwoWavefrontsWithoutConflict) {
  double* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 32 * sizeof(double)), cudaSuccess);
  run_with(cudasim::profile, [&] { shared_doubles<<<1, 32>>>(out); });
  const cudasim::AccessCounts ld = cudasim::last_profile().shared_load;
  EXPECT_EQ(ld.requests, 1u);
  EXPECT_EQ(ld.wavefronts, 2u);
  EXPECT_EQ(ld.bank_conflicts, 0u);
  EXPECT_EQ(cudasim::last_profile().barriers, 1u);  // one __syncthreads, one block
  EXPECT_EQ(cudasim::last_profile().blocks, 1u);
  EXPECT_EQ(cudasim::last_profile().threads_per_block, 32u);
  cudaFree(out);
}

// --- profile: atomics. Every lane of two warps adds to one counter.
__global__ void count_all(int* counter) { atomicAdd(counter, 1); }
__global__ void add_all(float* total) { atomicAdd(total, 1.0f); }

TEST(Profile, AtomicsOnOneAddressAreCountedPerLane) {
  int* counter = nullptr;
  ASSERT_EQ(cudaMalloc(&counter, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(counter, 0, sizeof(int)), cudaSuccess);
  run_with(cudasim::profile, [&] { count_all<<<1, 64>>>(counter); });
  cudasim::LaunchProfile p = cudasim::last_profile();
  EXPECT_EQ(p.global_atomic.requests, 2u);  // one per warp
  EXPECT_EQ(p.atomics, 64u);
  EXPECT_EQ(p.most_contended, 64u);
  EXPECT_EQ(p.global_load.requests, 0u);
  cudaFree(counter);
  Floats total(1);
  // atomicAdd(float*) is a load and a compare-and-swap here: still one atomic per lane.
  run_with(cudasim::profile, [&] { add_all<<<1, 64>>>(total.ptr); });
  p = cudasim::last_profile();
  EXPECT_EQ(p.global_atomic.requests, 2u);
  EXPECT_EQ(p.atomics, 64u);
  EXPECT_EQ(p.global_load.requests, 0u);
}

// --- racecheck.
constexpr int kRawWrite = __LINE__ + 3, kRawRead = __LINE__ + 5;
__global__ void neighbour(float* out, bool barrier) {
  __shared__ float s[64];
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  if (barrier) __syncthreads();
  if (threadIdx.x == 32) out[0] = s[31];  // thread 31 is in the other warp
}

TEST(Racecheck, AReadAfterWriteWithoutABarrierNamesBothThreadsAndLines) {
  Floats out(1);
  const std::string report =
      run_with(cudasim::racecheck, [&] { neighbour<<<1, 64>>>(out.ptr, false); });
  EXPECT_NE(report.find("read-after-write race (RAW) on shared memory 's'"), std::string::npos)
      << report;
  EXPECT_NE(report.find("at offset 124"), std::string::npos) << report;  // s[31]
  EXPECT_NE(report.find("thread (31,0,0) wrote it at " + kFile + ":" +
                        std::to_string(kRawWrite)),
            std::string::npos)
      << report;
  EXPECT_NE(
      report.find("thread (32,0,0) read it at " + kFile + ":" + std::to_string(kRawRead)),
      std::string::npos)
      << report;
  EXPECT_NE(report.find("no __syncthreads()"), std::string::npos) << report;
}

TEST(Racecheck, TheBarrierRemovesIt) {
  Floats out(1);
  EXPECT_EQ(run_with(cudasim::racecheck, [&] { neighbour<<<1, 64>>>(out.ptr, true); }), "");
}

// A warp-synchronous tree reduction: without __syncwarp() the lanes of the warp race.
__global__ void warp_sum(const float* in, float* out, bool syncwarp) {
  __shared__ float s[32];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  if (syncwarp) __syncwarp();
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    float v = s[t];
    if (t < offset) v += s[t + offset];
    if (syncwarp) __syncwarp();
    s[t] = v;
    if (syncwarp) __syncwarp();
  }
  if (t == 0) *out = s[0];
}

TEST(Racecheck, AWarpSynchronousReductionWithoutSyncwarpRaces) {
  Floats in(32), out(1);
  const std::string report =
      run_with(cudasim::racecheck, [&] { warp_sum<<<1, 32>>>(in.ptr, out.ptr, false); });
  EXPECT_NE(report.find("both in warp 0, with no __syncwarp() between them"), std::string::npos)
      << report;
  EXPECT_EQ(run_with(cudasim::racecheck, [&] { warp_sum<<<1, 32>>>(in.ptr, out.ptr, true); }), "");
  float sum = 0;
  ASSERT_EQ(cudaMemcpy(&sum, out.ptr, sizeof sum, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(sum, 496.0f);  // 0 + 1 + ... + 31
}

// A tile of 4 warps: its barrier orders its own threads, not those of the block's other tile.
__global__ void tile_exchange(float* out, bool same_tile, bool sync) {
  __shared__ float s[256];
  const cg::thread_block_tile<128> tile = cg::tiled_partition<128>(cg::this_thread_block());
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  if (sync) tile.sync();
  const unsigned partner = same_tile
                               ? tile.meta_group_rank() * 128 + (tile.thread_rank() + 64) % 128
                               : (threadIdx.x + 128) % 256;
  out[threadIdx.x] = s[partner];
}

TEST(Racecheck, ABarrierOfATileOfSeveralWarpsOrdersItsThreadsOnly) {
  Floats out(256);
  EXPECT_EQ(run_with(cudasim::racecheck, [&] { tile_exchange<<<1, 256>>>(out.ptr, true, true); }),
            "");
  std::vector<float> got(256);
  ASSERT_EQ(cudaMemcpy(got.data(), out.ptr, 256 * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(got[0], 64.0f);    // thread 0 read s[64]
  EXPECT_EQ(got[100], 36.0f);  // thread 100 read s[(100 + 64) % 128]
  EXPECT_NE(run_with(cudasim::racecheck, [&] { tile_exchange<<<1, 256>>>(out.ptr, true, false); })
                .find("race"),
            std::string::npos);
  const std::string across =
      run_with(cudasim::racecheck, [&] { tile_exchange<<<1, 256>>>(out.ptr, false, true); });
  EXPECT_NE(across.find("race"), std::string::npos) << across;
  EXPECT_NE(across.find("with no __syncthreads() between them"), std::string::npos) << across;
}

TEST(Racecheck, AtomicsOnOneAddressDoNotRace) {
  Floats total(1);
  EXPECT_EQ(run_with(cudasim::racecheck, [&] { add_all<<<2, 64>>>(total.ptr); }), "");
}

__global__ void add_all_plainly(const float* in, float* total) { total[0] += in[threadIdx.x]; }

TEST(Racecheck, ARaceOnGlobalMemoryNamesTheArgumentThatPointsThere) {
  Floats in(64), total(1);
  const std::string report =
      run_with(cudasim::racecheck, [&] { add_all_plainly<<<1, 64>>>(in.ptr, total.ptr); });
  EXPECT_NE(report.find("race (RAW) on global memory at offset 0 of a 4-byte allocation at 0x"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find(", passed as argument 2 'total':"), std::string::npos) << report;
}

// --- __device__, __constant__ and file-scope __shared__ variables: global, constant and
// per-block shared memory to the tools, as on a GPU.
__device__ int g_counter;
constexpr int kFlagDeclared = __LINE__ + 1;
__device__ float g_flag;  // no initialiser: zero, as C++ gives every variable of static storage
__constant__ float c_scale[32];
constexpr int kTileWrite = __LINE__ + 3, kTileRead = __LINE__ + 5;
__shared__ float tile[64];
__global__ void neighbour_in_a_file_scope_tile(float* out, bool barrier) {
  tile[threadIdx.x] = static_cast<float>(threadIdx.x);
  if (barrier) __syncthreads();
  if (threadIdx.x == 40) out[0] = tile[7];  // thread 7 is in the other warp
}
__global__ void count_into_a_symbol() { atomicAdd(&g_counter, 1); }
constexpr int kFlagWrite = __LINE__ + 2, kFlagRead = __LINE__ + 4;
__global__ void flag_without_a_barrier(float* out, bool barrier) {
  if (threadIdx.x == 0) g_flag = 1.0f;
  if (barrier) __syncthreads();
  if (threadIdx.x == 33) out[0] = g_flag;
}
__global__ void scale_by_constants(const float* in, float* out) {
  out[threadIdx.x] = c_scale[0] * in[threadIdx.x];  // one address for the warp: a broadcast
}

TEST(Symbols, ARaceOnAFileScopeSharedArrayNamesItAndBothLines) {
  Floats out(1);
  const std::string report = run_with(
      cudasim::racecheck, [&] { neighbour_in_a_file_scope_tile<<<1, 64>>>(out.ptr, false); });
  EXPECT_NE(report.find("read-after-write race (RAW) on shared memory 'tile' at offset 28 (of "
                        "256 bytes)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("thread (7,0,0) wrote it at " + kFile + ":" +
                        std::to_string(kTileWrite)),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("thread (40,0,0) read it at " + kFile + ":" +
                        std::to_string(kTileRead)),
            std::string::npos)
      << report;
  EXPECT_EQ(run_with(cudasim::racecheck,
                     [&] { neighbour_in_a_file_scope_tile<<<1, 64>>>(out.ptr, true); }),
            "");
  // Its stores are shared-memory requests: lane l writes tile[l], conflict-free.
  run_with(cudasim::profile, [&] { neighbour_in_a_file_scope_tile<<<1, 64>>>(out.ptr, true); });
  EXPECT_EQ(cudasim::last_profile().shared_store.requests, 2u);  // one per warp
  EXPECT_EQ(cudasim::last_profile().shared_store.bank_conflicts, 0u);
  EXPECT_EQ(cudasim::last_profile().shared_load.requests, 1u);
}

TEST(Symbols, AtomicsOnADeviceCounterShowInTheProfile) {
  const int zero = 0;
  ASSERT_EQ(cudaMemcpyToSymbol(g_counter, &zero, sizeof zero), cudaSuccess);
  run_with(cudasim::profile, [&] { count_into_a_symbol<<<2, 64>>>(); });
  const cudasim::LaunchProfile p = cudasim::last_profile();
  EXPECT_EQ(p.global_atomic.requests, 4u);  // 2 blocks x 2 warps
  EXPECT_EQ(p.atomics, 128u);
  EXPECT_EQ(p.most_contended, 128u);
  EXPECT_NE(p.text.find("the most contended, at offset 0 of __device__ variable 'g_counter' "
                        "(4 bytes), 128 times"),
            std::string::npos)
      << p.text;
  int count = 0;
  ASSERT_EQ(cudaMemcpyFromSymbol(&count, g_counter, sizeof count), cudaSuccess);
  EXPECT_EQ(count, 128);
}

TEST(Symbols, ARaceOnADeviceVariableBetweenTwoThreadsOfABlock) {
  Floats out(1);
  const std::string report = run_with(cudasim::racecheck | cudasim::initcheck,
                                      [&] { flag_without_a_barrier<<<1, 64>>>(out.ptr, false); });
  EXPECT_NE(report.find("read-after-write race (RAW) on __device__ variable 'g_flag' at offset 0 "
                        "(of 4 bytes, declared at " + kFile + ":" +
                        std::to_string(kFlagDeclared) + ")"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("thread (0,0,0) wrote it at " + kFile + ":" +
                        std::to_string(kFlagWrite)),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("thread (33,0,0) read it at " + kFile + ":" +
                        std::to_string(kFlagRead)),
            std::string::npos)
      << report;
  // With the barrier, no hazard; and a __device__ variable counts as written (no initcheck).
  EXPECT_EQ(run_with(cudasim::racecheck | cudasim::initcheck,
                     [&] { flag_without_a_barrier<<<1, 64>>>(out.ptr, true); }),
            "");
  float flag = 0;
  ASSERT_EQ(cudaMemcpy(&flag, out.ptr, sizeof flag, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(flag, 1.0f);
}

TEST(Symbols, ConstantLoadsAreTheirOwnKind) {
  const std::vector<float> scale(32, 2.0f);
  ASSERT_EQ(cudaMemcpyToSymbol(c_scale, scale.data(), 32 * sizeof(float)), cudaSuccess);
  Floats in(32), out(32);
  run_with(cudasim::profile, [&] { scale_by_constants<<<1, 32>>>(in.ptr, out.ptr); });
  const cudasim::LaunchProfile p = cudasim::last_profile();
  EXPECT_EQ(p.constant_load.requests, 1u);
  EXPECT_EQ(p.constant_load.bytes, 128u);  // 32 lanes x 4 bytes, all of c_scale[0]
  EXPECT_EQ(p.global_load.requests, 1u);   // in[lane] only
  EXPECT_EQ(p.dram_bytes_read, 128u);      // the constant cache is not DRAM traffic here
  EXPECT_NE(p.text.find("constant load"), std::string::npos) << p.text;
}

// --- initcheck: a load of a byte that nothing wrote.
// A profile file that cannot be written: the report still reaches stderr, with the reason.
TEST(Profile, AFileThatCannotBeOpenedFallsBackToStderr) {
  Floats in(32), out(32);
  ASSERT_EQ(setenv("CUDASIM_PROFILE_FILE", "/no-such-folder/profile.txt", 1), 0);
  ::testing::internal::CaptureStderr();
  run_with(cudasim::profile, [&] { broadcast_read<<<1, 32>>>(in.ptr, out.ptr); });
  const std::string said = ::testing::internal::GetCapturedStderr();
  unsetenv("CUDASIM_PROFILE_FILE");
  EXPECT_NE(said.find("cannot append to CUDASIM_PROFILE_FILE=/no-such-folder/profile.txt"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("profile: kernel 'broadcast_read'"), std::string::npos) << said;
}

constexpr int kUninitialisedRead = __LINE__ + 1;
__global__ void copy_all(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

TEST(Initcheck, AReadOfBytesNoCopyWroteIsReportedAtItsLine) {
  cudasim::set_tools(cudasim::initcheck);  // before cudaMalloc: the allocation is tracked
  float* in = nullptr;
  ASSERT_EQ(cudaMalloc(&in, 32 * sizeof(float)), cudaSuccess);
  const std::vector<float> host(16, 1.0f);  // only the first 16 floats are copied
  ASSERT_EQ(cudaMemcpy(in, host.data(), 16 * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  Floats out(32);
  const std::string report =
      run_with(cudasim::initcheck, [&] { copy_all<<<1, 32>>>(in, out.ptr); });
  EXPECT_NE(report.find("block (0,0,0) thread (16,0,0): uninitialised read of 4 bytes"),
            std::string::npos)
      << report;
  EXPECT_EQ(line_of(report, "tools_test.cu:"), kUninitialisedRead) << report;
  EXPECT_NE(report.find("16 uninitialised reads"), std::string::npos) << report;
  cudasim::set_tools(cudasim::initcheck);
  ASSERT_EQ(cudaMemset(in, 0, 32 * sizeof(float)), cudaSuccess);
  EXPECT_EQ(run_with(cudasim::initcheck, [&] { copy_all<<<1, 32>>>(in, out.ptr); }), "");
  cudaFree(in);
}

// --- memcheck, exact: the first bad access, by its thread, at its line.
constexpr int kStore = __LINE__ + 2;
__global__ void fill(float* out) {
  out[threadIdx.x] = 1.0f;  // no bound check: 64 threads, 6 floats
}
constexpr int kLoad = __LINE__ + 1;
__global__ void read_one(const float* in, float* out, int i) { out[0] = in[i]; }

TEST(Memcheck, AWriteZeroBytesPastTheEndIsReportedWhereItHappens) {
  cudasim::set_thread_order(cudasim::Order::forward);  // thread 6 is the first to go too far
  Floats out(6);  // 24 bytes: threads 6-63 write past the end, inside the 256-byte slack first
  const std::string report = run_with(cudasim::memcheck, [&] { fill<<<1, 64>>>(out.ptr); });
  EXPECT_NE(report.find("thread (6,0,0): invalid write of 4 bytes"), std::string::npos) << report;
  EXPECT_NE(report.find("0 bytes past the end of a 24-byte allocation at 0x"), std::string::npos)
      << report;
  EXPECT_NE(report.find(", passed as argument 1 'out' at " + kFile + ":"),
            std::string::npos)
      << report;
  EXPECT_EQ(line_of(report, "tools_test.cu:"), kStore) << report;
}

TEST(Memcheck, AReadInTheAlignmentSlackIsReported) {
  Floats in(6), out(1);
  const std::string report =
      run_with(cudasim::memcheck, [&] { read_one<<<1, 1>>>(in.ptr, out.ptr, 7); });
  EXPECT_NE(report.find("thread (0,0,0): invalid read of 4 bytes"), std::string::npos) << report;
  EXPECT_NE(report.find("4 bytes past the end of a 24-byte allocation at 0x"), std::string::npos)
      << report;
  EXPECT_NE(report.find(", passed as argument 1 'in' at "), std::string::npos) << report;
  EXPECT_EQ(line_of(report, "tools_test.cu:"), kLoad) << report;
  EXPECT_EQ(run_with(cudasim::memcheck, [&] { read_one<<<1, 1>>>(in.ptr, out.ptr, 5); }), "");
}

TEST(Tools, TheEnvironmentVariableSyntax) {
  EXPECT_EQ(cudasim::parse_tools("racecheck,memcheck"), cudasim::racecheck | cudasim::memcheck);
  EXPECT_EQ(cudasim::parse_tools("profile"), unsigned{cudasim::profile});
  EXPECT_EQ(cudasim::parse_tools("none"), 0u);
  EXPECT_EQ(cudasim::parse_tools("racecheck,speedcheck"), std::nullopt);
  EXPECT_TRUE(cudasim::tools_available());
}

}  // namespace
