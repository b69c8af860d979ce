// A CUDA step's cost targets, and the verdict on a call's launches against them, from the CPU
// execution layer's counts (cudasim/include/cudasim/tools.hpp). Plain data in, one line out: used by the
// lessons' efficiency tests (efficiency.hpp) and checked on hand-worked kernels
// (cudasim/tests/tools_test.cu, Cost.*).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cudasim/tools.hpp"

namespace andrea::testing {

/// A CUDA step's targets. A negative bound is not checked. Each hint names the change that
/// meets its target in this lesson's kernel.
struct CostTarget {
  double max_waste = 1.25;  ///< global sectors moved / the fewest that hold their requests' bytes
  std::string waste_hint;
  std::int64_t max_bank_conflicts = -1;  ///< shared-memory wavefronts beyond the ideal
  std::string conflict_hint;
  double max_shared_loads_per_warp = -1;  ///< shared-memory load requests / warps launched
  std::string shared_hint;
  std::int64_t max_atomics = -1;     ///< atomic operations (lanes)
  std::int64_t max_contention = -1;  ///< atomic operations on the busiest address
  /// atomic operations on global memory, counted in 4-byte ones (the bytes the lanes added to):
  /// a histogram kept in shared memory adds to global memory once per bin and block
  std::int64_t max_global_atomics = -1;
  std::string atomic_hint;
};

namespace cost {

inline std::string commas(std::uint64_t n) {
  std::string digits = std::to_string(n), s;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

inline std::string fixed(double x, int digits = 1) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, x);
  return text;
}

/// The launch's global access kind with the most sectors beyond what its bytes need.
inline std::pair<const char*, const cudasim::AccessCounts*> worst_global(
    const cudasim::LaunchProfile& p) {
  std::pair<const char*, const cudasim::AccessCounts*> worst{"load", &p.global_load};
  auto excess = [](const cudasim::AccessCounts& c) { return c.sectors - c.needed; };
  if (excess(p.global_store) > excess(*worst.second)) worst = {"store", &p.global_store};
  if (excess(p.global_atomic) > excess(*worst.second)) worst = {"atomic", &p.global_atomic};
  return worst;
}

}  // namespace cost

/// "" when the launches moved global memory, else why an efficiency test has nothing to measure:
/// no launch, or kernels that read and wrote no global memory, which cannot have done the call's
/// work (a host loop beside an empty launch; a kernel's work always reaches global memory).
inline std::string nothing_measured(const std::vector<cudasim::LaunchProfile>& launches) {
  if (launches.empty()) return "efficiency: the call launched no kernel to measure";
  std::uint64_t requests = 0;
  for (const auto& p : launches) requests += cudasim::global_requests(p);
  if (requests != 0) return "";
  return "efficiency: the call's " + std::to_string(launches.size()) +
         (launches.size() == 1 ? " launch" : " launches") +
         " read and wrote no global memory: nothing was measured, so no kernel did the call's "
         "work (a kernel reads its inputs and writes its output in global memory)";
}

/// "" when the launches meet the target, else the first figure that misses it, in one line:
/// "efficiency: kernel 'k' moves 8.0x the sectors its bytes need (32.0 sectors per global load
/// request where 4.0 would do), target <= 1.25x: neighbouring threads access addresses 3,072
/// bytes apart; <hint>".
inline std::string cost_verdict(const std::vector<cudasim::LaunchProfile>& launches,
                                const CostTarget& t) {
  using cost::commas, cost::fixed;
  std::uint64_t sectors = 0, needed = 0, atomics = 0, contention = 0, global_atomics = 0;
  for (const auto& p : launches) {
    sectors += cudasim::global_sectors(p), needed += cudasim::global_needed(p);
    atomics += p.atomics, contention = std::max(contention, p.most_contended);
    global_atomics += p.global_atomic.bytes / 4;
  }
  const double waste = needed ? static_cast<double>(sectors) / static_cast<double>(needed) : 0;
  if (waste > t.max_waste) {
    auto excess = [](const cudasim::LaunchProfile& p) {
      return cudasim::global_sectors(p) - cudasim::global_needed(p);
    };
    const cudasim::LaunchProfile* worst = &launches.front();
    for (const auto& p : launches) {
      if (excess(p) > excess(*worst)) worst = &p;
    }
    const auto [kind, c] = cost::worst_global(*worst);
    const double per = c->requests ? double(c->sectors) / double(c->requests) : 0;
    const double need = c->requests ? double(c->needed) / double(c->requests) : 0;
    const std::int64_t step = c->lane_stride < 0 ? -c->lane_stride : c->lane_stride;
    const std::string pattern =
        step > 0 ? "neighbouring threads access addresses " + commas(step) + " bytes apart"
                 : "the lanes of a warp access scattered addresses";
    return "efficiency: kernel '" + worst->kernel + "' moves " + fixed(waste) +
           "x the sectors its bytes need (" + fixed(per) + " sectors per global " + kind +
           " request where " + fixed(need) + " would do), target <= " + fixed(t.max_waste, 2) +
           "x: " + pattern + "; " + t.waste_hint;
  }
  for (const auto& p : launches) {
    const std::uint64_t conflicts = p.shared_load.bank_conflicts + p.shared_store.bank_conflicts;
    if (t.max_bank_conflicts >= 0 && conflicts > static_cast<std::uint64_t>(t.max_bank_conflicts)) {
      return "efficiency: kernel '" + p.kernel + "' has " + commas(conflicts) +
             " shared-memory bank conflicts (the worst request " +
             std::to_string(std::max(p.shared_load.max_way, p.shared_store.max_way)) +
             "-way), target <= " + commas(static_cast<std::uint64_t>(t.max_bank_conflicts)) +
             ": lanes of a warp reach different words of one bank; " + t.conflict_hint;
    }
    const std::uint64_t warps = p.blocks * ((p.threads_per_block + 31) / 32);
    const double loads = double(p.shared_load.requests) / double(std::max<std::uint64_t>(1, warps));
    if (t.max_shared_loads_per_warp >= 0 && loads > t.max_shared_loads_per_warp) {
      return "efficiency: kernel '" + p.kernel + "' makes " + fixed(loads) +
             " shared-memory load requests per warp, target <= " +
             fixed(t.max_shared_loads_per_warp) + ": a warp issues the load when any of its lanes "
             "is active; " + t.shared_hint;
    }
  }
  if (t.max_atomics >= 0 && atomics > static_cast<std::uint64_t>(t.max_atomics)) {
    return "efficiency: " + commas(atomics) + " atomics, target <= " +
           commas(static_cast<std::uint64_t>(t.max_atomics)) + "; " + t.atomic_hint;
  }
  if (t.max_global_atomics >= 0 && global_atomics > static_cast<std::uint64_t>(t.max_global_atomics)) {
    return "efficiency: " + commas(global_atomics) + " atomics on global memory, target <= " +
           commas(static_cast<std::uint64_t>(t.max_global_atomics)) + "; " + t.atomic_hint;
  }
  if (t.max_contention >= 0 && contention > static_cast<std::uint64_t>(t.max_contention)) {
    return "efficiency: " + commas(contention) + " atomics on one address, target <= " +
           commas(static_cast<std::uint64_t>(t.max_contention)) +
           " (the most the data itself puts on one address); " + t.atomic_hint;
  }
  return "";
}

}  // namespace andrea::testing
