// Warp votes, bit intrinsics, atomics beyond add, device maths and vector types, and blocks
// that are not a whole number of warps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "check.cuh"

using simtest::DeviceBuffer;

namespace {

constexpr unsigned kFull = 0xffffffffu;

__global__ void votes(unsigned* out) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned w = threadIdx.x / 32;
  const unsigned ballot = __ballot_sync(kFull, lane % 3 == 0);
  const int any5 = __any_sync(kFull, lane == 5);
  const int any_none = __any_sync(kFull, lane > 40);
  const int all_small = __all_sync(kFull, lane < 32);
  const int all_but_one = __all_sync(kFull, lane < 31);
  const unsigned active = __activemask();
  if (lane == 0) {
    unsigned* o = out + 6 * w;
    o[0] = ballot;
    o[1] = any5;
    o[2] = any_none;
    o[3] = all_small;
    o[4] = all_but_one;
    o[5] = active;
  }
}

TEST(WarpVote, BallotAnyAllActivemask) {
  DeviceBuffer<unsigned> d_out(12);
  votes<<<1, 64>>>(d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (int w = 0; w < 2; ++w) {
    EXPECT_EQ(out[6 * w + 0], 0x49249249u);  // lanes 0, 3, 6, ..., 30
    EXPECT_EQ(out[6 * w + 1], 1u);
    EXPECT_EQ(out[6 * w + 2], 0u);
    EXPECT_EQ(out[6 * w + 3], 1u);
    EXPECT_EQ(out[6 * w + 4], 0u);
    EXPECT_EQ(out[6 * w + 5], kFull);
  }
}

// Lanes 16-31 of each warp have returned: only lanes 0-15 are active.
__global__ void half_active(unsigned* out) {
  if (threadIdx.x % 32 >= 16) return;
  const unsigned mask = __activemask();
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = mask;
}

TEST(WarpVote, ActivemaskLeavesOutLanesThatReturned) {
  DeviceBuffer<unsigned> d_out(2);
  half_active<<<1, 64>>>(d_out.get());
  CHECK_LAUNCH();
  EXPECT_EQ(d_out.to_host(), (std::vector<unsigned>{0x0000ffffu, 0x0000ffffu}));
}

// 100 threads: warp 3 has 4 lanes. Block-wide counts, and warp 0 alone shuffles.
__global__ void partial_block(int* out) {
  const int t = static_cast<int>(threadIdx.x);
  const int even = __syncthreads_count(t % 2 == 0);
  const int all_below_100 = __syncthreads_and(t < 100);
  const int all_below_99 = __syncthreads_and(t < 99);
  const int some_is_42 = __syncthreads_or(t == 42);
  const int none = __syncthreads_or(t > 200);
  if (t < 32) {
    int sum = t;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(kFull, sum, offset);
    if (t == 0) {
      out[0] = sum;
      out[1] = even;
      out[2] = all_below_100;
      out[3] = all_below_99;
      out[4] = some_is_42;
      out[5] = none;
    }
  }
}

TEST(PartialWarp, HundredThreadBlockWhereWarpZeroShuffles) {
  DeviceBuffer<int> d_out(6);
  partial_block<<<1, 100>>>(d_out.get());
  CHECK_LAUNCH();
  EXPECT_EQ(d_out.to_host(), (std::vector<int>{496, 50, 1, 0, 1, 0}));  // 496 = 0 + 1 + ... + 31
}

__global__ void bits(const unsigned* in, int* out) {
  const unsigned x = in[threadIdx.x];
  int* o = out + 5 * threadIdx.x;
  o[0] = __popc(x);
  o[1] = __clz(static_cast<int>(x));
  o[2] = __ffs(static_cast<int>(x));
  o[3] = static_cast<int>(__brev(x));
  o[4] = __popcll(static_cast<unsigned long long>(x) << 32 | x);
}

TEST(BitIntrinsics, PopcClzFfsBrev) {
  const std::vector<unsigned> in{0u, 1u, 8u, 0xf0f0u, 0x80000000u, kFull};
  DeviceBuffer<unsigned> d_in(in);
  DeviceBuffer<int> d_out(5 * in.size());
  bits<<<1, static_cast<unsigned>(in.size())>>>(d_in.get(), d_out.get());
  CHECK_LAUNCH();
  const std::vector<int> expected{
      0,  32, 0,  0,
      0,  // 0
      1,  31, 1,  static_cast<int>(0x80000000u),
      2,  // 1
      1,  28, 4,  0x10000000,
      2,  // 8
      8,  16, 5,  0x0f0f0000,
      16,  // 0xf0f0
      1,  0,  32, 1,
      2,  // bit 31
      32, 0,  1,  -1,
      64,  // all ones
  };
  EXPECT_EQ(d_out.to_host(), expected);
}

// The CAS loop every CUDA text shows for a float maximum (CUDA has no atomicMax(float*)).
__device__ float atomic_max_float(float* address, float value) {
  int* bits = reinterpret_cast<int*>(address);
  int old = *bits;
  while (__int_as_float(old) < value) {
    const int assumed = old;
    old = atomicCAS(bits, assumed, __float_as_int(value));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}

__device__ double atomic_add_double_cas(double* address, double value) {
  auto* bits = reinterpret_cast<unsigned long long*>(address);
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    const double sum = __longlong_as_double(static_cast<long long>(assumed)) + value;
    old = atomicCAS(bits, assumed, static_cast<unsigned long long>(__double_as_longlong(sum)));
  } while (assumed != old);
  return __longlong_as_double(static_cast<long long>(old));
}

struct Totals {
  int max_i, min_i;
  unsigned max_u;
  float max_f;
  double sum_d;
  int sub;
  unsigned exch_count;
  unsigned or_bits;
};

__global__ void atomics(const int* data, int n, Totals* t, unsigned* slot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicMax(&t->max_i, data[i]);
  atomicMin(&t->min_i, data[i]);
  atomicMax(&t->max_u, static_cast<unsigned>(data[i] + 1000));
  atomic_max_float(&t->max_f, 0.25f * static_cast<float>(data[i]));
  atomic_add_double_cas(&t->sum_d, static_cast<double>(data[i]));
  atomicSub(&t->sub, 2);
  if (atomicExch(slot, 1u) == 0u) atomicAdd(&t->exch_count, 1u);  // only the first gets 0
  atomicOr(&t->or_bits, 1u << (i % 32));
}

TEST(Atomics, MaxMinCasExchSubOr) {
  const int n = 1000;
  std::vector<int> data(n);
  for (int i = 0; i < n; ++i) data[i] = (i * 7919) % 1009 - 500;  // -500 .. 508, shuffled
  DeviceBuffer<int> d_data(data);
  const Totals start{std::numeric_limits<int>::min(),
                     std::numeric_limits<int>::max(),
                     0u,
                     -std::numeric_limits<float>::infinity(),
                     0.0,
                     n,
                     0u,
                     0u};
  DeviceBuffer<Totals> d_t(std::vector<Totals>{start});
  DeviceBuffer<unsigned> slot(std::vector<unsigned>{0u});
  atomics<<<(n + 127) / 128, 128>>>(d_data.get(), n, d_t.get(), slot.get());
  CHECK_LAUNCH();
  const Totals t = d_t.to_host()[0];
  const int max_i = *std::max_element(data.begin(), data.end());
  const int min_i = *std::min_element(data.begin(), data.end());
  EXPECT_EQ(t.max_i, max_i);
  EXPECT_EQ(t.min_i, min_i);
  EXPECT_EQ(t.max_u, static_cast<unsigned>(max_i + 1000));
  EXPECT_EQ(t.max_f, 0.25f * static_cast<float>(max_i));
  EXPECT_EQ(t.sum_d, static_cast<double>(std::accumulate(data.begin(), data.end(), 0LL)));
  EXPECT_EQ(t.sub, n - 2 * n);
  EXPECT_EQ(t.exch_count, 1u);
  EXPECT_EQ(t.or_bits, kFull);
}

__global__ void wrapping_counters(unsigned* inc, unsigned* dec, unsigned* seen_inc) {
  seen_inc[threadIdx.x] = atomicInc(inc, 4u);  // 0, 1, 2, 3, 4, 0, 1, ...
  atomicDec(dec, 10u);                         // 2, 1, 0, 10, 9, ...
}

TEST(Atomics, IncAndDecWrapAroundAsInCuda) {
  const std::vector<unsigned> zero{0u}, two{2u}, nine{9u}, twenty{20u};
  DeviceBuffer<unsigned> inc(zero), dec(two), seen(64);
  wrapping_counters<<<1, 64>>>(inc.get(), dec.get(), seen.get());
  CHECK_LAUNCH();
  EXPECT_EQ(inc.to_host()[0], 64u % 5u);                // 64 increments, wrapping after 4
  EXPECT_EQ(dec.to_host()[0], 10u - (64u - 3u) % 11u);  // 3 down to 0, then wrapping at 10
  std::vector<unsigned> got = seen.to_host(), expected(64);
  for (unsigned i = 0; i < 64; ++i) expected[i] = i % 5;
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);  // each old value once per wrap, whatever the threads' order
  // Past the limit, atomicInc starts again at 0 and atomicDec at the limit.
  DeviceBuffer<unsigned> high(nine), low(twenty);
  wrapping_counters<<<1, 1>>>(high.get(), low.get(), seen.get());
  CHECK_LAUNCH();
  EXPECT_EQ(high.to_host()[0], 0u);
  EXPECT_EQ(low.to_host()[0], 10u);
}

TEST(VectorTypes, SizesAlignmentsAndMakeFunctionsOfVectorTypesH) {
  static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4 && sizeof(char3) == 3);
  static_assert(alignof(char3) == 1 && alignof(uchar2) == 2 && sizeof(short2) == 4);
  static_assert(alignof(short2) == 4 && alignof(ushort4) == 8 && sizeof(ushort3) == 6);
  static_assert(alignof(longlong2) == 16 && sizeof(double4_16a) == 32 && alignof(double2) == 16);
  static_assert(alignof(float1) == 4 && alignof(float2) == 8 && alignof(uint3) == 4);
  const uchar4 p = make_uchar4(1, 2, 3, 250);
  const short2 s = make_short2(-7, 8);
  const double3 d = make_double3(0.5, 1.5, 2.5);
  const ulonglong2 u = make_ulonglong2(1ull << 40, 3ull);
  EXPECT_EQ(p.w + p.x, 251);
  EXPECT_EQ(s.x * s.y, -56);
  EXPECT_EQ(d.x + d.y + d.z, 4.5);
  EXPECT_EQ(u.x >> 40, 1ull);
  const dim3 grid(make_uint3(4, 2, 1));
  EXPECT_EQ(grid.x * grid.y * grid.z, 8u);
}

struct MathResults {
  int min_i, max_i;
  unsigned min_mixed;
  float min_f, max_f;
  float ldg, ldcs, div, mul_rn, sat_hi, sat_lo, sat_nan;
  int rn_25, rn_35, rn_m25;
  int4 i4;
  uint4 u4;
  int2 i2;
  float3 f3;
};

__global__ void math(const float* x, MathResults* r) {
  r->min_i = min(-3, 4);
  r->max_i = max(-3, 4);
  r->min_mixed = min(-1, 5u);  // mixed signed/unsigned compares as unsigned, as in CUDA
  r->min_f = min(x[0], x[1]);
  r->max_f = max(x[0], x[1]);
  r->ldg = __ldg(x + 1);
  r->ldcs = __ldcs(x);
  __stcs(&r->mul_rn, __fmul_rn(x[0], 3.0f));  // llm.c's streaming store
  r->div = __fdividef(1.0f, 4.0f);
  r->sat_hi = __saturatef(1.5f);
  r->sat_lo = __saturatef(-0.5f);
  r->sat_nan = __saturatef(x[2]);
  r->rn_25 = __float2int_rn(2.5f);
  r->rn_35 = __float2int_rn(3.5f);
  r->rn_m25 = __float2int_rn(-2.5f);
  r->i4 = make_int4(1, -2, 3, -4);
  r->u4 = make_uint4(5u, 6u, 7u, 8u);
  r->i2 = make_int2(9, 10);
  r->f3 = make_float3(0.5f, 1.5f, 2.5f);
}

TEST(DeviceMath, MinMaxLoadsFastDivideSaturateRoundingAndVectorTypes) {
  static_assert(sizeof(int4) == 16 && alignof(int4) == 16 && sizeof(uint4) == 16);
  static_assert(sizeof(int2) == 8 && alignof(int2) == 8 && sizeof(float3) == 12);
  DeviceBuffer<float> d_x(std::vector<float>{2.0f, -1.0f, std::nanf("")});
  DeviceBuffer<MathResults> d_r(1);
  math<<<1, 1>>>(d_x.get(), d_r.get());
  CHECK_LAUNCH();
  const MathResults r = d_r.to_host()[0];
  EXPECT_EQ(r.min_i, -3);
  EXPECT_EQ(r.max_i, 4);
  EXPECT_EQ(r.min_mixed, 5u);
  EXPECT_EQ(r.min_f, -1.0f);
  EXPECT_EQ(r.max_f, 2.0f);
  EXPECT_EQ(r.ldg, -1.0f);
  EXPECT_EQ(r.ldcs, 2.0f);
  EXPECT_EQ(r.mul_rn, 6.0f);
  EXPECT_EQ(r.div, 0.25f);
  EXPECT_EQ(r.sat_hi, 1.0f);
  EXPECT_EQ(r.sat_lo, 0.0f);
  EXPECT_EQ(r.sat_nan, 0.0f);
  EXPECT_EQ(r.rn_25, 2);  // ties to even
  EXPECT_EQ(r.rn_35, 4);
  EXPECT_EQ(r.rn_m25, -2);
  EXPECT_EQ(r.i4.x + r.i4.y + r.i4.z + r.i4.w, -2);
  EXPECT_EQ(r.u4.w, 8u);
  EXPECT_EQ(r.i2.y, 10);
  EXPECT_EQ(r.f3.z, 2.5f);
}

// __reduce_*_sync: each lane of a warp gets the reduction of the warp's 32 values. Lane l of
// warp w holds u = 3 l + 100 w (unsigned) and i = l - 20 + w (int).
struct WarpReductions {
  unsigned add_u, min_u, max_u, and_u, or_u, xor_u;
  int add_i, min_i, max_i;
};

__global__ void warp_reductions(WarpReductions* out) {
  const unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const unsigned u = 3 * lane + 100 * w;
  const int i = static_cast<int>(lane) - 20 + static_cast<int>(w);
  WarpReductions r;
  r.add_u = __reduce_add_sync(kFull, u);
  r.min_u = __reduce_min_sync(kFull, u);
  r.max_u = __reduce_max_sync(kFull, u);
  r.and_u = __reduce_and_sync(kFull, u | 0x10000u);
  r.or_u = __reduce_or_sync(kFull, u);
  r.xor_u = __reduce_xor_sync(kFull, u);
  r.add_i = __reduce_add_sync(kFull, i);
  r.min_i = __reduce_min_sync(kFull, i);
  r.max_i = __reduce_max_sync(kFull, i);
  out[threadIdx.x] = r;
}

TEST(Intrinsics, WarpReduceFunctionsGiveEveryLaneTheWarpsResult) {
  const unsigned threads = 64;
  DeviceBuffer<WarpReductions> d_out(threads);
  warp_reductions<<<1, threads>>>(d_out.get());
  CHECK_LAUNCH();
  const auto out = d_out.to_host();
  for (unsigned w = 0; w < threads / 32; ++w) {
    unsigned add_u = 0, min_u = ~0u, max_u = 0, and_u = ~0u, or_u = 0, xor_u = 0;
    int add_i = 0, min_i = 1 << 30, max_i = -(1 << 30);
    for (unsigned lane = 0; lane < 32; ++lane) {
      const unsigned u = 3 * lane + 100 * w;
      const int i = static_cast<int>(lane) - 20 + static_cast<int>(w);
      add_u += u;
      min_u = std::min(min_u, u);
      max_u = std::max(max_u, u);
      and_u &= u | 0x10000u;
      or_u |= u;
      xor_u ^= u;
      add_i += i;
      min_i = std::min(min_i, i);
      max_i = std::max(max_i, i);
    }
    for (unsigned lane = 0; lane < 32; ++lane) {
      const WarpReductions& r = out[w * 32 + lane];
      EXPECT_EQ(r.add_u, add_u) << "warp " << w << " lane " << lane;
      EXPECT_EQ(r.min_u, min_u) << "warp " << w << " lane " << lane;
      EXPECT_EQ(r.max_u, max_u) << "warp " << w << " lane " << lane;
      EXPECT_EQ(r.and_u, and_u) << "warp " << w << " lane " << lane;
      EXPECT_EQ(r.or_u, or_u) << "warp " << w << " lane " << lane;
      EXPECT_EQ(r.xor_u, xor_u) << "warp " << w << " lane " << lane;
      EXPECT_EQ(r.add_i, add_i) << "warp " << w << " lane " << lane;
      EXPECT_EQ(r.min_i, min_i) << "warp " << w << " lane " << lane;
      EXPECT_EQ(r.max_i, max_i) << "warp " << w << " lane " << lane;
    }
  }
  // Worked by hand for warp 0: 3 (0 + ... + 31) = 1,488; lanes -20..11 sum to -144.
  EXPECT_EQ(out[0].add_u, 1488u);
  EXPECT_EQ(out[0].add_i, -144);
  EXPECT_EQ(out[0].min_i, -20);
  EXPECT_EQ(out[0].max_u, 93u);
}

// __reduce_*_sync over a partial mask (the odd lanes of warp 0) and over the full mask in the
// last warp of a 48-thread block (lanes 0-15 only): each reduces over the lanes that take part.
__global__ void partial_reductions(int* out) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (threadIdx.x < 32 && lane % 2 == 1) {
    const unsigned odd = 0xaaaaaaaau;
    const int sum = __reduce_add_sync(odd, lane);
    const int least = __reduce_min_sync(odd, lane - 20);
    const int most = __reduce_max_sync(odd, lane - 20);
    if (lane == 1) {
      out[0] = sum;
      out[1] = least;
      out[2] = most;
    }
  }
  if (threadIdx.x >= 32) {
    const unsigned sum = __reduce_add_sync(kFull, static_cast<unsigned>(lane));
    if (lane == 15) out[3] = static_cast<int>(sum);
  }
}

TEST(Intrinsics, WarpReduceOverAPartialMaskAndAPartialWarp) {
  DeviceBuffer<int> d_out(4);
  partial_reductions<<<1, 48>>>(d_out.get());
  CHECK_LAUNCH();
  // 1 + 3 + ... + 31 = 256; 1 - 20 = -19; 31 - 20 = 11; 0 + 1 + ... + 15 = 120
  EXPECT_EQ(d_out.to_host(), (std::vector<int>{256, -19, 11, 120}));
}

}  // namespace
