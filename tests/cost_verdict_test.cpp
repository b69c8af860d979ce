// The efficiency tests' verdict (tests/support/cost_verdict.hpp) on the counts of hand-worked
// kernels: one warp of 32 lanes, each figure as cudasim/tests/tools_test.cu's Profile tests count
// it on the CPU layer (a float each: 128 bytes, 4 sectors, when the lanes read neighbours).
#include <gtest/gtest.h>

#include "tests/support/cost_verdict.hpp"

namespace {

using andrea::testing::cost_verdict;
using andrea::testing::CostTarget;
using andrea::testing::nothing_measured;

// One launch of one warp: `requests` global loads of `sectors` sectors where `needed` would
// hold their bytes, the lanes `stride` bytes apart.
cudasim::LaunchProfile loads(std::uint64_t requests, std::uint64_t sectors, std::uint64_t needed,
                             std::int64_t stride) {
  cudasim::LaunchProfile p;
  p.kernel = "k";
  p.blocks = 1, p.threads_per_block = 32;
  p.global_load = {requests, sectors, 0, 0, 0, requests * 128, stride, needed};
  return p;
}

const CostTarget kCoalesced{.max_waste = 1.25, .waste_hint = "give threadIdx.x the column"};

TEST(Cost, CoalescedFloat4AndBroadcastLoadsMeetTheTarget) {
  EXPECT_EQ(cost_verdict({loads(1, 4, 4, 4)}, kCoalesced), "");    // in[lane]
  EXPECT_EQ(cost_verdict({loads(1, 16, 16, 16)}, kCoalesced), "");  // float4: 512 bytes
  EXPECT_EQ(cost_verdict({loads(1, 1, 1, 0)}, kCoalesced), "");    // in[0] for every lane
}

// A host loop beside an empty launch: no global memory moved, so no kernel did the work.
TEST(Cost, LaunchesThatMoveNoGlobalMemoryMeasureNothing) {
  EXPECT_EQ(nothing_measured({}), "efficiency: the call launched no kernel to measure");
  cudasim::LaunchProfile empty;
  empty.kernel = "k", empty.blocks = 1, empty.threads_per_block = 32;
  EXPECT_EQ(nothing_measured({empty, empty}),
            "efficiency: the call's 2 launches read and wrote no global memory: nothing was "
            "measured, so no kernel did the call's work (a kernel reads its inputs and writes its "
            "output in global memory)");
  EXPECT_EQ(nothing_measured({empty, loads(1, 4, 4, 4)}), "");  // one launch did move memory
}

TEST(Cost, StridedLoadsNameTheWasteTheTargetAndTheStride) {
  // in[2 * lane]: 8 sectors, half of each used.
  EXPECT_EQ(cost_verdict({loads(1, 8, 4, 8)}, kCoalesced),
            "efficiency: kernel 'k' moves 2.0x the sectors its bytes need (8.0 sectors per global "
            "load request where 4.0 would do), target <= 1.25x: neighbouring threads access "
            "addresses 8 bytes apart; give threadIdx.x the column");
  // A thread per row of ANDREA-120M's width: rows 768 floats = 3,072 bytes apart.
  EXPECT_EQ(cost_verdict({loads(2, 64, 8, 3072)}, kCoalesced),
            "efficiency: kernel 'k' moves 8.0x the sectors its bytes need (32.0 sectors per "
            "global load request where 4.0 would do), target <= 1.25x: neighbouring threads "
            "access addresses 3,072 bytes apart; give threadIdx.x the column");
  // Rows gathered in no order: no single step between lanes.
  EXPECT_NE(cost_verdict({loads(1, 32, 4, 0)}, kCoalesced)
                .find("the lanes of a warp access scattered addresses"),
            std::string::npos);
}

TEST(Cost, TheWasteIsOfAllTheCallsLaunches) {
  // 3 coalesced launches and one at 2x: 20 sectors where 16 would do, 1.25x: within.
  const auto good = loads(1, 4, 4, 4);
  EXPECT_EQ(cost_verdict({good, good, good, loads(1, 8, 4, 8)}, kCoalesced), "");
}

cudasim::LaunchProfile shared(std::uint64_t requests, std::uint64_t way, std::uint64_t warps) {
  cudasim::LaunchProfile p;
  p.kernel = "reduce";
  p.blocks = 1, p.threads_per_block = 32 * warps;
  p.shared_load = {requests, 0, requests * way, requests * (way - 1), way, requests * 128, 0, 0};
  return p;
}

const CostTarget kReduction{.max_bank_conflicts = 0,
                            .conflict_hint = "index by tid",
                            .max_shared_loads_per_warp = 4,
                            .shared_hint = "keep the active threads the lowest ones"};

TEST(Cost, BankConflictsAreNamedWithTheirWay) {
  EXPECT_EQ(cost_verdict({shared(1, 1, 1)}, kReduction), "");  // s[lane]
  EXPECT_EQ(cost_verdict({shared(1, 2, 1)}, kReduction),        // s[2 * lane]: 2-way
            "efficiency: kernel 'reduce' has 1 shared-memory bank conflicts (the worst request "
            "2-way), target <= 0: lanes of a warp reach different words of one bank; index by tid");
  EXPECT_EQ(cost_verdict({shared(2, 16, 1)}, kReduction),       // s[16 * lane], twice: 16-way
            "efficiency: kernel 'reduce' has 30 shared-memory bank conflicts (the worst request "
            "16-way), target <= 0: lanes of a warp reach different words of one bank; index by tid");
}

TEST(Cost, SharedLoadsArePerWarpLaunched) {
  // 256 partial sums: halving with the lowest threads active takes 15 loads for 8 warps; every
  // (2 * stride)-th thread active keeps all 8 warps loading at each of 8 steps, twice: 128.
  EXPECT_EQ(cost_verdict({shared(15, 1, 8)}, kReduction), "");
  EXPECT_EQ(cost_verdict({shared(128, 1, 8)}, kReduction),
            "efficiency: kernel 'reduce' makes 16.0 shared-memory load requests per warp, target "
            "<= 4.0: a warp issues the load when any of its lanes is active; keep the active "
            "threads the lowest ones");
}

cudasim::LaunchProfile atomics(std::uint64_t count, std::uint64_t busiest) {
  cudasim::LaunchProfile p;
  p.kernel = "add";
  p.blocks = 1, p.threads_per_block = 64;
  p.global_atomic = {2, 8, 0, 0, 0, 256, 4, 8};  // two warps on neighbouring floats
  p.atomics = count, p.most_contended = busiest;
  return p;
}

TEST(Cost, AtomicsAndTheirContentionAgainstWhatTheDataForces) {
  const CostTarget target{.max_atomics = 64, .max_contention = 2, .atomic_hint = "one per element"};
  EXPECT_EQ(cost_verdict({atomics(64, 1)}, target), "");  // 64 lanes, 64 addresses
  EXPECT_EQ(cost_verdict({atomics(128, 2)}, target),
            "efficiency: 128 atomics, target <= 64; one per element");
  EXPECT_EQ(cost_verdict({atomics(64, 64)}, target),  // every lane on one counter
            "efficiency: 64 atomics on one address, target <= 2 (the most the data itself puts "
            "on one address); one per element");
}

TEST(Cost, GlobalAtomicsAreTheBytesAddedToGlobalMemory) {
  // 64 lanes add 4 bytes each to global memory (256 bytes); the shared ones do not count.
  const CostTarget target{.max_global_atomics = 64, .atomic_hint = "once per bin and block"};
  cudasim::LaunchProfile p = atomics(1000, 1);
  p.shared_atomic = {32, 0, 32, 0, 1, 3744, 0, 0};  // 936 lanes on shared memory
  EXPECT_EQ(cost_verdict({p}, target), "");
  p.global_atomic.bytes = 4 * 65;
  EXPECT_EQ(cost_verdict({p}, target),
            "efficiency: 65 atomics on global memory, target <= 64; once per bin and block");
}

}  // namespace
