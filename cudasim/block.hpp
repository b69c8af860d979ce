// One CUDA block, run as fibers on the calling OS thread (internal to cudasim).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <source_location>
#include <string>
#include <vector>

#include "cudasim/api.hpp"
#include "cudasim/context.hpp"
#include "cudasim/device.hpp"
#include "cudasim/fiber_stack.hpp"
#include "cudasim/launch.hpp"

namespace cudasim::detail {

struct LaunchInfo {
  const char* name;
  KernelCall call;
  dim3 grid, block;
  std::size_t shared_bytes;  // dynamic shared memory of each block
  ThreadOrder order;
  KernelArgs args;
};

/// ", passed as argument 2 'out'": the first pointer argument of the launch that points into
/// [start, start + size] (its end included); "" if none does.
std::string passed_as(const LaunchInfo& launch, std::uintptr_t start, std::size_t size);

enum class Wait : std::uint8_t { none, block_barrier, warp_op, exited };  // none: runnable

/// One CUDA thread: its context and what it waits for. One cache line, since every switch reads it.
struct alignas(64) SimThread {
  Context context = nullptr;  // this thread while it is suspended
  uint3 idx{};
  Wait wait = Wait::none;
  WarpOp op{};  // for Wait::warp_op: the operation and its operands
  std::uint8_t width = 32;
  unsigned lane_arg = 0;
  unsigned mask = ~0u;  // for Wait::warp_op: the lanes it names
  std::uint64_t value = 0, result = 0;
  std::source_location site;           // the barrier it waits at
  const void* stack_bottom = nullptr;  // for ASan
};
static_assert(sizeof(SimThread) == 64);

/// Runs blocks, one at a time, on the calling OS thread. Scheduling goes in rounds: every
/// runnable thread runs once, in the chosen order, until it reaches a barrier or returns; then
/// it switches straight to the next one. When the round is over, nobody can run: the scheduler
/// opens what can open (each group of lanes that all wait at the same warp operation with the
/// same mask; else each __activemask(); else the __syncthreads() that every thread waits at)
/// or, if nothing can, reports the block as stuck. The state at the end of a round does not
/// depend on the order the threads ran in, so neither does what opens.
///
/// The fibers outlive a block: after returning from the kernel, a thread sleeps until the next
/// block wakes it to run the kernel again, so a block costs no fiber creation.
class Block {
 public:
  Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block();

  /// Runs block `index` to completion. Returns "" or what went wrong; then error_code() says
  /// which CUDA error it is (cudaErrorAssert for a failed assert, else cudaErrorLaunchFailure).
  std::string run(const LaunchInfo& launch, uint3 index);
  cudaError_t error_code() const { return error_code_; }

  static Block& current(const char* what);  // the block running on this OS thread
  static bool inside_kernel();              // is a CUDA thread running on this OS thread?
  /// The launch of the CUDA thread running on this OS thread; nullptr outside a kernel.
  static const LaunchInfo* running_launch();
  /// The stack of the CUDA thread running on this OS thread; nullptr outside a kernel.
  /// Async-signal-safe: the SIGSEGV handler calls it.
  static const void* running_stack_bottom();
  /// Ends the running CUDA thread after a bad memory access (see memory.hpp): the launch fails
  /// with `what`, and the thread's fiber, stuck in the faulting frame, is set aside for good.
  [[noreturn]] static void crash_running_thread(const std::string& what);
  /// Whether the last run() failed because of a bad memory access.
  bool illegal_address() const { return illegal_address_; }
  /// The launch this block belongs to (while it runs).
  const LaunchInfo& launch() const { return *launch_; }
  int barrier(std::source_location where, int predicate);
  void poison_shared(void* p, std::size_t size, const char* name);
  /// Suspends the running thread at a warp operation until every lane that `mask` names waits
  /// at the same one (see device.hpp); returns the lane's result.
  std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t bits, unsigned lane_arg, int width,
                        std::source_location where);

 private:
  friend void fiber_entry();                   // a new fiber's first function: calls body()
  static constexpr unsigned kScheduler = ~0u;  // the OS thread's own context, not a CUDA thread

  [[noreturn]] void body(unsigned i);
  void new_fiber(unsigned i);               // a fresh fiber and stack for thread i
  void switch_to(unsigned next);            // returns when someone switches back
  unsigned next_runnable();                 // the next thread of this round, or kScheduler
  void wait();                              // the running thread stops at a barrier
  void release();                           // opens a barrier or sets error_
  void fail(unsigned i, const char* what);  // thread i threw
  unsigned lanes(unsigned warp) const { return std::min(32u, n_ - warp * 32); }
  unsigned named(unsigned warp, unsigned mask) const;  // the lanes of `mask` the warp has
  void check_call(WarpOp op, unsigned mask, int width, std::source_location where) const;
  bool open_warp_groups();
  bool group_met(unsigned warp, unsigned lane) const;
  void exchange(unsigned warp, unsigned group);
  std::uint64_t result_of(unsigned warp, unsigned lane, unsigned group, unsigned ballot) const;
  bool open_activemasks();
  bool open_block_barrier();
  void report_stuck();
  std::string unmet(unsigned warp, unsigned lane) const;
  void abandon();
  std::string where_is(const SimThread& t) const;
  std::string stuck(const std::string& what, unsigned first, unsigned last) const;
  std::string stuck(const std::string& what, const std::vector<unsigned>& threads) const;

  const LaunchInfo* launch_ = nullptr;
  StackPool stacks_;
  std::vector<SimThread> threads_;    // capacity 1024, never reallocated: fibers refer to it
  Context scheduler_ = nullptr;       // the OS thread's context while a CUDA thread runs
  unsigned n_ = 0;                    // threads in the current block
  dim3 shape_{0, 0, 0};               // the blockDim that threads_[i].idx was computed for
  unsigned live_ = 0;                 // threads that have not returned
  unsigned running_ = kScheduler;     // who runs now
  std::vector<unsigned> order_;       // this round's order
  std::size_t cursor_ = 0;            // position in order_
  std::vector<unsigned> at_warp_op_;  // per warp: lanes waiting at a warp operation
  bool aborting_ = false;
  bool quitting_ = false;
  bool illegal_address_ = false;
  std::vector<unsigned> crashed_;  // threads that faulted: their fibers need replacing
  std::string error_;
  cudaError_t error_code_ = cudaSuccess;
  std::vector<const void*> poisoned_;  // the __shared__ variables filled with 0xff in this block
  std::mt19937_64 rng_;
  const void* os_stack_bottom_ = nullptr;  // the OS thread's stack, for ASan
  std::size_t os_stack_size_ = 0;
};

}  // namespace cudasim::detail
