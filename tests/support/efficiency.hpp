// What a kernel costs, checked like a value: the CPU execution layer counts each launch's memory
// traffic exactly (cudasim/include/cudasim/tools.hpp: requests, 32-byte sectors, bank conflicts, atomics),
// the same on every run and machine, so a lesson's test can hold its CUDA step to a target and
// say, when it misses, which figure, which target and what pattern in the kernel causes it.
//
// The targets and their reasons are in each lesson's README ("What the kernel costs"); the
// grader gives these tests a share of the CUDA step (grader/grading.py, EFFICIENCY). The counts
// are Nsight Compute's metrics (cudasim/README.md, "Measuring a kernel"); on a GPU they are
// measured, not graded (no test here runs there): there the time figures vary from run to run.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cudasim/tools.hpp"
#include "tests/support/cost_verdict.hpp"
#include "tests/support/only_on.hpp"
#if defined(ANDREA_BACKEND_REMOTE)
#include "grader/remote/client.hpp"
#endif

// Where kernels run on the CPU layer, which counts them: the cudasim backend, in a test program
// of its own or through a grade build's piece runner. The other backends leave them out.
ANDREA_ONLY_ON("Efficiency.*", "cudasim");

namespace andrea::testing {

/// The launches `call` made, as the profile tool counted them: in this process, or in the piece
/// runner of a grade build (which sends them back, grader/remote/client.hpp). nullopt when the
/// kernels carry no instrumentation (a _plain program, the sanitize preset): nothing counted.
inline std::optional<std::vector<cudasim::LaunchProfile>> profile_of(
    const std::function<void()>& call) {
#if defined(ANDREA_BACKEND_REMOTE)
  remote::profile_calls(true);
  call();
  remote::ProfiledCalls calls = std::move(remote::profiled_calls());
  remote::profile_calls(false);
  if (!calls.counted) return std::nullopt;
  return std::move(calls.launches);
#else
  if (!cudasim::tools_available()) return std::nullopt;
  const unsigned tools = cudasim::enabled_tools();
  // Counted, not printed, unless the profile tool was on already (CUDASIM_TOOLS=profile, as
  // grade.py --profile sets it): then the launches graded here are printed like every other.
  const bool printed = (tools & cudasim::profile) != 0;
  cudasim::set_tools(tools | cudasim::profile);
  if (!printed) cudasim::set_profile_sink([](const std::string&) {});
  cudasim::take_profiles();
  call();
  std::vector<cudasim::LaunchProfile> launches = cudasim::take_profiles();
  cudasim::set_tools(tools);
  if (!printed) cudasim::set_profile_sink(nullptr);
  return launches;
#endif
}

/// The verdict as googletest reads it: the report shows the line alone, "Actual: false (...)".
inline ::testing::AssertionResult within_cost(const std::vector<cudasim::LaunchProfile>& launches,
                                              const CostTarget& target) {
  if (const std::string nothing = nothing_measured(launches); !nothing.empty())
    return ::testing::AssertionFailure() << nothing;
  const std::string verdict = cost_verdict(launches, target);
  if (verdict.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << verdict;
}

/// Runs `call` under the profile tool and fails the test with cost_verdict()'s line when its
/// launches miss `target`. Skips (saying why) where the kernels carry no instrumentation (a
/// _plain program, a sanitize build); through the runners of a build whose kernels carry it
/// (ANDREA_RUNNERS_INSTRUMENTED, remote.cmake), a call that comes back not profiled fails: the
/// runner's code switched the tool off.
inline void expect_within_cost(const std::function<void()>& call, const CostTarget& target) {
  const auto launches = profile_of(call);
  if (!launches) {
#if defined(ANDREA_BACKEND_REMOTE) && defined(ANDREA_RUNNERS_INSTRUMENTED)
    FAIL() << "efficiency: the call came back not profiled, yet the runner's kernels carry the "
              "profile tool's instrumentation: the code under test switched the tool off";
#else
    GTEST_SKIP() << "this program's kernels carry no instrumentation (a _plain program or the "
                    "sanitize preset): the profile tool counts nothing here";
#endif
  }
  EXPECT_TRUE(within_cost(*launches, target));
}

}  // namespace andrea::testing
