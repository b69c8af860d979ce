// What the layer tells a tool (memcheck, racecheck, initcheck, profile: cudasim/tools), as one
// interface: the core calls it and never includes the tools; the tools implement it and install
// themselves (tools/tools.cpp). With no tool installed, or none on for the running launch, each
// call site is a null check.
//
// Memory accesses do not pass through here: the kernel translation units are compiled with g++'s
// memory-access instrumentation, whose calls (__tsan_read4, ...) go to the tools directly
// (tools/access_hooks.cpp). A bad access caught by a guard page instead (memory.hpp) is reported in
// the launch's error text, with a pc_token() that Observer::symbolize turns into a .cu line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudasim/builtins.hpp"

namespace cudasim::detail {
struct LaunchInfo;
}

namespace cudasim::hooks {

/// A tool's view of the layer's events. Every function has a default that does nothing.
class Observer {
 public:
  virtual ~Observer() = default;

  /// A launch is about to run its blocks on `workers` OS threads. Returns the number of workers
  /// to use (a tool that watches the launch returns 1) and, through `watch`, whether it wants
  /// this launch's events (block, barrier, shared memory, launch_end).
  virtual unsigned launch_begin(const detail::LaunchInfo& /*launch*/, unsigned workers,
                                bool& watch) {
    watch = false;
    return workers;
  }
  /// The launch's blocks have all ended (`failed`: one failed). Returns what the tool found,
  /// "" if nothing; a report fails the launch (cudaErrorLaunchFailure).
  virtual std::string launch_end(bool /*failed*/) { return {}; }
  /// Block `index` of `threads` threads starts / has ended (on the running worker).
  virtual void block_begin(uint3 /*index*/, unsigned /*threads*/) {}
  virtual void block_end() {}
  /// A __syncthreads() of the running block opened: every thread reached it.
  virtual void block_synced() {}
  /// A warp operation of warp `warp` (a shuffle, a vote, __syncwarp) opened.
  virtual void warp_synced(unsigned /*warp*/) {}
  /// The barrier of a tile of several warps, threads [first, first + count), opened.
  virtual void tile_synced(unsigned /*first*/, unsigned /*count*/) {}
  /// A function-scope __shared__ variable of the running block: `size` bytes at p, its name.
  virtual void shared_declared(const void* /*p*/, std::size_t /*size*/, const char* /*name*/) {}
  /// cudaMalloc made an allocation of `size` bytes at p. Returns true if the layer should keep
  /// one bit per byte saying whether it was written (initcheck reads them).
  virtual bool allocated(const void* /*p*/, std::size_t /*size*/) { return false; }
  /// Replaces each pc_token() in `text` by the source line of that code address.
  virtual std::string symbolize(const std::string& text) { return text; }
};

/// Makes `observer` the tools of this process (nullptr: none). Not thread-safe: call it before
/// the first launch (the tools do, from a static initialiser).
void install(Observer* observer);
/// The installed observer, or nullptr.
Observer* installed();
/// The observer of the running launch: the installed one while it watches a launch, else
/// nullptr. Written between launches only (launches are serialised).
extern Observer* g_watching;

/// "{pc:0x...}": a code address, to be replaced by Observer::symbolize later (a report is made on
/// a CUDA thread's small stack; the lines are looked up once the launch has ended).
std::string pc_token(std::uintptr_t pc);

}  // namespace cudasim::hooks
