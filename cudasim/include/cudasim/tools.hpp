// The layer's checking and measuring tools, after NVIDIA's compute-sanitizer and Nsight Compute:
//
//   memcheck   the first out-of-bounds access to global or dynamic shared memory, by its thread,
//              at its .cu line (the alignment slack included), naming the allocation
//   racecheck  two threads of one block touch the same byte between the same two barriers,
//              at least one writes, not both atomically: RAW, WAR or WAW, both threads and lines.
//              Lanes of one warp are ordered only by a warp operation (__syncwarp, a shuffle, a
//              vote), as under independent thread scheduling
//   initcheck  a load from global memory that no copy, memset or kernel store wrote
//   profile    per launch and per .cu line: warp-level requests, 32-byte sectors, shared-memory
//              bank conflicts, atomics; the DRAM bytes the launch must move and the time that
//              takes on named GPUs (cudasim/README.md, "Measuring a kernel")
//
// The kernel translation units (cu2cpp.py's output) are compiled with g++'s memory-access
// instrumentation (-fsanitize=thread, at compile time only: the program does not link
// ThreadSanitizer's runtime); cudasim/tools/access_hooks.cpp gives its hooks a runtime of our own,
// which does nothing unless a launch runs with a tool on. A launch with a tool on runs its blocks
// on one worker thread. Under the sanitize preset (AddressSanitizer) nothing is instrumented and
// the tools are off.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudasim {

/// The tools, as bits of a mask.
enum Tool : unsigned { memcheck = 1, racecheck = 2, initcheck = 4, profile = 8 };

/// Overrides CUDASIM_TOOLS (a comma-separated list of memcheck, racecheck, initcheck, profile,
/// or "none"), which the first launch reads. 0: every tool off.
void set_tools(unsigned mask);
/// The tools that the next launch runs with.
unsigned enabled_tools();
/// Parses the CUDASIM_TOOLS syntax; nullopt if a name is not a tool.
std::optional<unsigned> parse_tools(std::string_view text);
/// Whether kernels were compiled with the instrumentation the tools need (false under the
/// sanitize preset: then set_tools has no effect on what is checked).
bool tools_available();
/// Where the profile of each launch is printed: stderr unless CUDASIM_PROFILE_FILE names a file
/// (appended to), or the callback set here (nullptr: back to the default).
void set_profile_sink(void (*sink)(const std::string& report));
/// Starts now the symbolizer that names a report's .cu lines (binutils' addr2line on the program
/// itself), and keeps it running, where it would otherwise run once per report: for a process
/// that gives up starting others before it reports (the course's piece runner under seccomp).
/// Without addr2line on the PATH, reports name code addresses, as they do anyway.
void start_symbolizer();

/// One kind of access of a launch (global load, shared store, ...), as Nsight Compute counts it.
struct AccessCounts {
  std::uint64_t requests = 0;        // warp-level instructions: l1tex__t_requests_...
  std::uint64_t sectors = 0;         // global: distinct 32-byte sectors per request, summed
  std::uint64_t wavefronts = 0;      // shared: bank passes, l1tex__data_pipe_lsu_wavefronts_...
  std::uint64_t bank_conflicts = 0;  // shared: wavefronts beyond the conflict-free count (one
                                     // per phase: a warp of 8-byte accesses needs 2)
  std::uint64_t max_way = 0;         // shared: the worst request's n-way bank conflict
  std::uint64_t bytes = 0;           // what the lanes asked for
  std::int64_t lane_stride = 0;      // global: in the request with the most sectors beyond what
                                     // its bytes need, the bytes from one lane's address to the
                                     // next lane's (0 if they do not step evenly)
  std::uint64_t needed = 0;          // global: the fewest sectors that hold each request's
                                     // distinct bytes, summed (sectors / needed: the waste)
};
/// The profile of one launch; `text` is what is printed.
struct LaunchProfile {
  std::string kernel, text;
  AccessCounts global_load, global_store, global_atomic, shared_load, shared_store, shared_atomic;
  AccessCounts constant_load;  // __constant__ variables (the constant cache; not in the DRAM bytes)
  std::uint64_t dram_bytes_read = 0, dram_bytes_written = 0;  // each distinct sector once
  std::uint64_t ideal_bytes = 0;     // each byte the kernel reads or writes, once
  std::uint64_t atomics = 0;         // atomic operations (lanes)
  std::uint64_t most_contended = 0;  // atomic operations on the busiest address
  std::uint64_t blocks = 0;          // blocks the launch ran
  std::uint64_t threads_per_block = 0;
  std::uint64_t barriers = 0;        // __syncthreads passed, summed over the blocks
};
/// The profile of the last launch that ran with the profile tool on.
LaunchProfile last_profile();
/// The profiles of the launches that ran with the profile tool on since the last call, oldest
/// first, without their text (the first 8,192 of them); the list is emptied.
std::vector<LaunchProfile> take_profiles();
/// Global requests, their 32-byte sectors, and the fewest sectors their distinct bytes fill:
/// loads, stores and atomics together.
inline std::uint64_t global_requests(const LaunchProfile& p) {
  return p.global_load.requests + p.global_store.requests + p.global_atomic.requests;
}
inline std::uint64_t global_sectors(const LaunchProfile& p) {
  return p.global_load.sectors + p.global_store.sectors + p.global_atomic.sectors;
}
inline std::uint64_t global_needed(const LaunchProfile& p) {
  return p.global_load.needed + p.global_store.needed + p.global_atomic.needed;
}
/// The launch in one line, the report's "in short:" line: global requests and their sectors
/// against what their bytes need, shared-memory requests and bank conflicts, atomics (those on
/// global memory apart) and their contention, barriers per block, and the bytes moved through L1 (sectors x 32) against each byte
/// once, with the time those bytes take at the memory bandwidth of an H200, an A100 80GB and a T4
/// (so a kernel whose lanes touch scattered sectors shows a longer time than a coalesced one).
std::string summary(const LaunchProfile& p);

}  // namespace cudasim
