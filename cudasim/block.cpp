// The block scheduler: fibers, barriers, warp exchanges, and the report when a block is stuck.
#include "cudasim/block.hpp"
#include "cudasim/hooks.hpp"
#include "cudasim/memory.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace cudasim::detail {

namespace {

thread_local Block* t_block = nullptr;  // the block this OS thread is running, if any

struct Abort {};  // thrown at a barrier to unwind the threads of an abandoned block

inline bool same_site(const std::source_location& a, const std::source_location& b) {
  return a.line() == b.line() && a.column() == b.column() &&
         (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0);
}

std::string site(const std::source_location& s) {
  return std::string(s.file_name()) + ":" + std::to_string(s.line()) + ":" +
         std::to_string(s.column());
}

std::string xyz(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::sync:
      return "__syncwarp()";
    case WarpOp::shfl_idx:
      return "__shfl_sync()";
    case WarpOp::shfl_up:
      return "__shfl_up_sync()";
    case WarpOp::shfl_down:
      return "__shfl_down_sync()";
    case WarpOp::shfl_xor:
      return "__shfl_xor_sync()";
    case WarpOp::ballot:
      return "__ballot_sync()";
    case WarpOp::any:
      return "__any_sync()";
    case WarpOp::all:
      return "__all_sync()";
    case WarpOp::active:
      return "__activemask()";
    case WarpOp::match_any:
      return "__match_any_sync()";
    case WarpOp::match_all:
      return "__match_all_sync()";
    case WarpOp::reduce:
      return "__reduce_*_sync()";
  }
  return "?";
}

// The lane a shuffle reads: PTX shfl.sync, which the CUDA intrinsics wrap. Only the low 5 bits
// of the lane operand count; a source outside the lane's segment of `width` lanes (or below
// lane 0, or above 31) means the lane keeps its own value.
unsigned source_lane(WarpOp op, unsigned lane, unsigned arg, int width) {
  const unsigned seg = (32u - static_cast<unsigned>(width)) & 31u;  // bits naming the segment
  const unsigned bound = (lane & seg) | ((op == WarpOp::shfl_up ? 0u : 31u) & ~seg);
  const unsigned b = arg & 31u;
  switch (op) {
    case WarpOp::shfl_up:
      return lane >= b && lane - b >= bound ? lane - b : lane;
    case WarpOp::shfl_down:
      return lane + b <= bound ? lane + b : lane;
    case WarpOp::shfl_xor:
      return (lane ^ b) <= bound ? lane ^ b : lane;
    case WarpOp::shfl_idx:
      return (lane & seg) | (b & ~seg);
    default:
      break;
  }
  return lane;
}

// The lanes of `group` whose value has the same bits as `value`.
unsigned matching(const SimThread* lane, unsigned group, std::uint64_t value) {
  unsigned same = 0;
  for (unsigned m = group; m != 0; m &= m - 1) {
    const unsigned l = std::countr_zero(m);
    if (lane[l].value == value) same |= 1u << l;
  }
  return same;
}

unsigned combine(Reduce kind, unsigned a, unsigned b) {
  const int x = std::bit_cast<int>(a), y = std::bit_cast<int>(b);
  switch (kind) {
    case Reduce::add:
      return a + b;  // wraps around, for int too
    case Reduce::min_unsigned:
      return std::min(a, b);
    case Reduce::min_int:
      return std::bit_cast<unsigned>(std::min(x, y));
    case Reduce::max_unsigned:
      return std::max(a, b);
    case Reduce::max_int:
      return std::bit_cast<unsigned>(std::max(x, y));
    case Reduce::bit_and:
      return a & b;
    case Reduce::bit_or:
      return a | b;
    case Reduce::bit_xor:
      return a ^ b;
  }
  return a;
}

// __reduce_*_sync(): the 32-bit values of the lanes of `group`, combined.
std::uint64_t reduce_group(const SimThread* lane, unsigned group, Reduce kind) {
  auto r = static_cast<unsigned>(lane[std::countr_zero(group)].value);
  for (unsigned m = group & (group - 1); m != 0; m &= m - 1) {
    r = combine(kind, r, static_cast<unsigned>(lane[std::countr_zero(m)].value));
  }
  return r;
}

[[noreturn]] void outside_kernel(const char* what) {
  throw std::logic_error(std::string(what) + " called outside a kernel");
}

// "0-15, 17, 20-31"
std::string ranges(const std::vector<unsigned>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(ids[i]);
    if (j > i) s += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return s;
}

// "0x000000ff"
std::string hex(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

// The lanes of a mask, as "0-7, 16"; "none" for 0.
std::string lane_list(unsigned mask) {
  std::vector<unsigned> lanes;
  for (unsigned m = mask; m != 0; m &= m - 1) lanes.push_back(std::countr_zero(m));
  return lanes.empty() ? "none" : ranges(lanes);
}

}  // namespace

int block_barrier(std::source_location where, int predicate) {
  return Block::current("__syncthreads()").barrier(where, predicate);
}

void poison_shared(void* p, std::size_t size, const char* name) {
  if (Block::inside_kernel()) Block::current("__shared__").poison_shared(p, size, name);
}

void tile_barrier_opened(unsigned first, unsigned count) {
  if (hooks::Observer* tools = hooks::g_watching) tools->tile_synced(first, count);
}

void assert_failed(const char* condition, const char* file, int line) {
  const std::string what =
      std::string("assertion '") + condition + "' failed at " + file + ":" + std::to_string(line);
  if (Block::inside_kernel()) throw DeviceAssert(what);
  std::fprintf(stderr, "%s\n", what.c_str());  // host code: as the C library's assert
  std::abort();
}

std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t bits, unsigned lane_arg, int width,
                      std::source_location where) {
  return Block::current(op_name(op)).warp_op(op, mask, bits, lane_arg, width, where);
}

Block::Block() {
  threads_.reserve(1024);  // the most threads a block can have
  os_thread_stack(&os_stack_bottom_, &os_stack_size_);
  prepare_fault_handling();
}

// Wakes every sleeping fiber one last time so that it returns, and gives its stack back.
Block::~Block() {
  quitting_ = true;
  t_block = this;  // for fiber_entry, if a fiber made after a crash has never run
  for (unsigned i = 0; i < threads_.size(); ++i) {
    switch_to(i);
    boost::context::stack_context stack;
    stack.size = kStackSize;
    stack.sp = static_cast<char*>(const_cast<void*>(threads_[i].stack_bottom)) + kStackSize;
    stacks_.give(stack);
  }
  t_block = nullptr;
}

bool Block::inside_kernel() { return t_block != nullptr && t_block->running_ != kScheduler; }

const LaunchInfo* Block::running_launch() { return inside_kernel() ? t_block->launch_ : nullptr; }

inline Block& Block::current(const char* what) {
  Block* const block = t_block;
  if (block == nullptr || block->running_ == kScheduler) outside_kernel(what);
  return *block;
}

std::string Block::run(const LaunchInfo& launch, uint3 index) {
  launch_ = &launch;
  blockIdx = index;
  blockDim = launch.block;
  gridDim = launch.grid;
  const dim3 b = launch.block;
  n_ = b.x * b.y * b.z;
  while (threads_.size() < n_) {  // a fiber for each thread, reused by the next blocks
    threads_.emplace_back();
    new_fiber(static_cast<unsigned>(threads_.size() - 1));
  }
  if (b.x != shape_.x || b.y != shape_.y || b.z != shape_.z) {
    shape_ = b;
    for (unsigned i = 0; i < n_; ++i) threads_[i].idx = {i % b.x, i / b.x % b.y, i / (b.x * b.y)};
  }
  for (unsigned i = 0; i < n_; ++i) threads_[i].wait = Wait::none;
  live_ = n_;
  aborting_ = false;
  illegal_address_ = false;
  at_warp_op_.assign((n_ + 31) / 32, 0);
  error_.clear();
  error_code_ = cudaSuccess;
  poisoned_.clear();
  std::memset(t_dynamic_shared, 0xff, launch.shared_bytes);  // "uninitialised", like cudaMalloc
  order_.resize(n_);
  std::iota(order_.begin(), order_.end(), 0u);
  if (launch.order.order == Order::reverse) std::reverse(order_.begin(), order_.end());
  if (launch.order.order == Order::random) {  // a sequence of its own for each block
    const auto g = launch.grid;
    rng_.seed(launch.order.seed * 0x9e3779b97f4a7c15ull + index.x +
              std::uint64_t{g.x} * (index.y + std::uint64_t{g.y} * index.z));
  }

  if (hooks::Observer* tools = hooks::g_watching) tools->block_begin(index, n_);
  t_block = this;
  while (live_ > 0 && error_.empty()) {
    if (launch.order.order == Order::random) std::shuffle(order_.begin(), order_.end(), rng_);
    cursor_ = 0;
    if (const unsigned first = next_runnable(); first != kScheduler) switch_to(first);
    if (live_ > 0 && error_.empty()) release();  // the round is over
  }
  if (!error_.empty()) abandon();
  for (const unsigned i : crashed_) {
    // The old fiber cannot be resumed nor unwound: its stack, with the faulting frame on it,
    // is never given back to the pool.
    new_fiber(i);
  }
  crashed_.clear();
  t_block = nullptr;
  if (hooks::Observer* tools = hooks::g_watching) tools->block_end();
  return error_;
}

// Nothing runs on the new stack until the block first switches to it (fiber_entry, below).
void Block::new_fiber(unsigned i) {
  const auto stack = stacks_.take();
  SimThread& t = threads_[i];
  t.stack_bottom = detail::stack_bottom(stack);
  t.context = make_context(stack.sp, stack.size);
}

const void* Block::running_stack_bottom() {
  const Block* const block = t_block;
  if (block == nullptr || block->running_ == kScheduler) return nullptr;
  return block->threads_[block->running_].stack_bottom;
}

void Block::crash_running_thread(const std::string& what) {
  Block& b = current("a memory access");
  const unsigned i = b.running_;
  if (b.error_.empty()) b.illegal_address_ = true;
  b.fail(i, what.c_str());
  b.threads_[i].wait = Wait::exited;
  --b.live_;
  b.crashed_.push_back(i);
  b.switch_to(kScheduler);
  std::abort();  // never resumed
}

// A new fiber's first function (context.hpp): it runs as the thread the block switched to.
void fiber_entry() {
  Block* const block = t_block;
  block->body(block->running_);
}

// The life of one fiber: run the kernel as thread i of a block, sleep until the next block.
void Block::body(unsigned i) {
  asan_arrive(nullptr, nullptr, nullptr);
  while (!quitting_) {
    if (!aborting_) {
      try {
        launch_->call.invoke(launch_->call.frame);
      } catch (const Abort&) {
      } catch (const DeviceAssert& e) {
        fail(i, e.what());
        if (error_code_ == cudaErrorLaunchFailure) error_code_ = cudaErrorAssert;
      } catch (const std::exception& e) {
        fail(i, e.what());
      } catch (...) {
        fail(i, "an exception that is not a std::exception");
      }
    }
    threads_[i].wait = Wait::exited;
    --live_;
    switch_to(aborting_ || !error_.empty() ? kScheduler : next_runnable());
  }
  running_ = kScheduler;
  asan_leave(nullptr, os_stack_bottom_, os_stack_size_);  // this fiber ends
  switch_context(&threads_[i].context, scheduler_);
  std::abort();  // never resumed
}

// Jumps from the running context to `next`. Every context runs this (or body) to hand over:
// the one that leaves saves itself, so the switch is direct and symmetric, no scheduler between.
void Block::switch_to(unsigned next) {
  void* fake_stack = nullptr;
  if (next == kScheduler) {
    asan_leave(&fake_stack, os_stack_bottom_, os_stack_size_);
  } else {
    const SimThread& t = threads_[next];
    asan_leave(&fake_stack, t.stack_bottom, kStackSize);
    threadIdx = t.idx;
  }
  Context* const save = running_ == kScheduler ? &scheduler_ : &threads_[running_].context;
  running_ = next;
  switch_context(save, next == kScheduler ? scheduler_ : threads_[next].context);
  asan_arrive(fake_stack, nullptr, nullptr);
}

inline unsigned Block::next_runnable() {
  while (cursor_ < order_.size()) {
    const unsigned i = order_[cursor_++];
    if (threads_[i].wait == Wait::none) return i;
  }
  return kScheduler;
}

// The running thread stops at a barrier: the next thread of the round runs.
inline void Block::wait() {
  switch_to(aborting_ || !error_.empty() ? kScheduler : next_runnable());
  if (aborting_) throw Abort{};
}

void Block::fail(unsigned i, const char* what) {
  if (error_.empty()) {
    error_code_ = cudaErrorLaunchFailure;
    error_ = "kernel '" + std::string(launch_->name) + "' block " + xyz(blockIdx) + " thread " +
             xyz(threads_[i].idx) + ": " + what;
  }
}

int Block::barrier(std::source_location where, int predicate) {
  SimThread& t = threads_[running_];
  t.wait = Wait::block_barrier;
  t.site = where;
  t.value = predicate != 0;
  wait();
  return static_cast<int>(t.result);
}

void Block::poison_shared(void* p, std::size_t size, const char* name) {
  if (std::find(poisoned_.begin(), poisoned_.end(), p) != poisoned_.end()) return;
  poisoned_.push_back(p);
  std::memset(p, 0xff, size);
  if (hooks::Observer* tools = hooks::g_watching) tools->shared_declared(p, size, name);
}

std::uint64_t Block::warp_op(WarpOp op, unsigned mask, std::uint64_t bits, unsigned lane_arg,
                             int width, std::source_location where) {
  check_call(op, mask, width, where);
  SimThread& t = threads_[running_];
  t.wait = Wait::warp_op;
  t.op = op;
  t.site = where;
  t.value = bits;
  t.lane_arg = lane_arg;
  t.mask = mask;
  t.width = static_cast<std::uint8_t>(width);
  ++at_warp_op_[running_ / 32];
  wait();
  return t.result;
}

// A call that CUDA leaves undefined fails the launch, as compute-sanitizer's synccheck reports
// it: a width that is not a power of 2 in [1, 32], or a mask that leaves out the calling lane.
void Block::check_call(WarpOp op, unsigned mask, int width, std::source_location where) const {
  const bool bad_width = width < 1 || width > 32 || (width & (width - 1)) != 0;
  const unsigned lane = running_ % 32;
  const bool left_out = (mask >> lane & 1u) == 0;
  if (!bad_width && !left_out) return;
  const std::string at = std::string(op_name(op)) + " at " + site(where) + ": ";
  if (bad_width) {
    throw std::invalid_argument(at + "width " + std::to_string(width) +
                                " is not a power of 2 in [1, 32]");
  }
  throw std::invalid_argument(at + "mask " + hex(mask) + " (lanes " + lane_list(mask) +
                              ") leaves out the calling lane " + std::to_string(lane) +
                              "; a lane must name itself in the mask it passes");
}

unsigned Block::named(unsigned w, unsigned mask) const {
  const unsigned count = lanes(w);
  return count == 32 ? mask : mask & ((1u << count) - 1);
}

// Called when no thread can run: opens what can open, else reports the block as stuck.
void Block::release() {
  if (!open_warp_groups() && !open_activemasks() && !open_block_barrier()) report_stuck();
}

// Opens each group of lanes that has met: every lane a mask names waits at the same warp
// operation, with that mask. The lanes outside it are not waited for. Two groups that have met
// cannot share a lane (each lane has one mask), so they open in any order.
bool Block::open_warp_groups() {
  bool opened = false;
  for (unsigned w = 0; w < at_warp_op_.size(); ++w) {
    if (at_warp_op_[w] == 0) continue;
    const SimThread* lane = &threads_[w * 32];
    unsigned seen = 0;  // lanes whose group has been looked at
    for (unsigned l = 0; l < lanes(w); ++l) {
      const SimThread& t = lane[l];
      if ((seen >> l & 1u) != 0 || t.wait != Wait::warp_op || t.op == WarpOp::active) continue;
      const unsigned group = named(w, t.mask);
      if (group_met(w, l)) {
        exchange(w, group);
        opened = true;
      }
      for (unsigned m = group; m != 0; m &= m - 1) {  // the same mask: the same group
        const unsigned k = std::countr_zero(m);
        if (lane[k].mask == t.mask) seen |= 1u << k;
      }
    }
  }
  return opened;
}

// Whether every lane that lane l's mask names waits at lane l's warp operation, with its mask.
// A lane the last warp of the block lacks is not waited for.
bool Block::group_met(unsigned w, unsigned l) const {
  const SimThread* lane = &threads_[w * 32];
  const SimThread& me = lane[l];
  for (unsigned m = named(w, me.mask); m != 0; m &= m - 1) {
    const SimThread& t = lane[std::countr_zero(m)];
    if (t.wait != Wait::warp_op || t.op != me.op || t.mask != me.mask ||
        !same_site(t.site, me.site)) {
      return false;
    }
  }
  return true;
}

// Opens the lanes `group` of warp w, which wait at one warp operation: each gets its result.
void Block::exchange(unsigned w, unsigned group) {
  SimThread* lane = &threads_[w * 32];
  unsigned ballot = 0;
  for (unsigned m = group; m != 0; m &= m - 1) {
    const unsigned l = std::countr_zero(m);
    ballot |= (lane[l].value != 0 ? 1u : 0u) << l;
  }
  for (unsigned m = group; m != 0; m &= m - 1) {
    const unsigned l = std::countr_zero(m);
    lane[l].result = result_of(w, l, group, ballot);
    lane[l].wait = Wait::none;
  }
  at_warp_op_[w] -= static_cast<unsigned>(std::popcount(group));
  if (hooks::Observer* tools = hooks::g_watching) tools->warp_synced(w);
}

// What lane l of warp w gets from its operation, done by the lanes `group` (bit l of `ballot`:
// lane l's predicate). A shuffle from a lane outside the group reads kOutsideMask; from a lane
// the last warp lacks (blockDim 100: lanes 4-31 of warp 3), its own value.
std::uint64_t Block::result_of(unsigned w, unsigned l, unsigned group, unsigned ballot) const {
  const SimThread* lane = &threads_[w * 32];
  const SimThread& t = lane[l];
  switch (t.op) {
    case WarpOp::ballot:
      return ballot;
    case WarpOp::any:
      return ballot != 0;
    case WarpOp::all:
      return ballot == group;
    case WarpOp::active:
      return group;
    case WarpOp::match_any:
      return matching(lane, group, t.value);
    case WarpOp::match_all:
      return matching(lane, group, t.value) == group ? group : 0;
    case WarpOp::reduce:
      return reduce_group(lane, group, static_cast<Reduce>(t.lane_arg));
    case WarpOp::sync:
      return 0;
    default:
      break;  // a shuffle
  }
  const unsigned src = source_lane(t.op, l, t.lane_arg, t.width);
  if (src >= lanes(w)) return t.value;
  return (group >> src & 1u) != 0 ? lane[src].value : kOutsideMask;
}

// __activemask(): once nothing else can open, the lanes of a warp that wait at the same
// __activemask() are the ones that reach it together (the others have returned or wait at a
// barrier that cannot open before they move); each gets their mask.
bool Block::open_activemasks() {
  bool opened = false;
  for (unsigned w = 0; w < at_warp_op_.size(); ++w) {
    const SimThread* lane = &threads_[w * 32];
    for (unsigned l = 0; at_warp_op_[w] != 0 && l < lanes(w); ++l) {
      if (lane[l].wait != Wait::warp_op || lane[l].op != WarpOp::active) continue;
      unsigned group = 0;
      for (unsigned k = l; k < lanes(w); ++k) {
        if (lane[k].wait == Wait::warp_op && lane[k].op == WarpOp::active &&
            same_site(lane[k].site, lane[l].site)) {
          group |= 1u << k;
        }
      }
      exchange(w, group);
      opened = true;
    }
  }
  return opened;
}

// Opens the __syncthreads() that every thread of the block waits at, if they all wait at the
// same one (none has returned).
bool Block::open_block_barrier() {
  if (live_ != n_) return false;
  for (unsigned i = 0; i < n_; ++i) {
    if (threads_[i].wait != Wait::block_barrier || !same_site(threads_[i].site, threads_[0].site)) {
      return false;
    }
  }
  std::uint64_t count = 0;  // for __syncthreads_count/and/or
  for (unsigned i = 0; i < n_; ++i) count += threads_[i].value;
  for (unsigned i = 0; i < n_; ++i) {
    threads_[i].wait = Wait::none;
    threads_[i].result = count;
  }
  if (hooks::Observer* tools = hooks::g_watching) tools->block_synced();
  return true;
}

// Nothing can open: names the first warp operation whose lanes do not all come (as
// compute-sanitizer's synccheck would), else the __syncthreads() not every thread reaches.
void Block::report_stuck() {
  for (unsigned i = 0; i < n_; ++i) {
    if (threads_[i].wait == Wait::warp_op) {
      error_ = unmet(i / 32, i % 32);
      return;
    }
  }
  error_ = stuck("__syncthreads() is not reached by every thread of the block", 0, n_);
}

// "warp 1: not all 8 lanes reach the same __shfl_up_sync() (mask 0x000000ff: lanes 0-7) ...",
// then where each lane the mask names is: waiting elsewhere, with another mask, or returned.
std::string Block::unmet(unsigned w, unsigned l) const {
  const SimThread& t = threads_[w * 32 + l];
  const unsigned group = named(w, t.mask);
  std::vector<unsigned> ids;
  for (unsigned m = group; m != 0; m &= m - 1) ids.push_back(w * 32 + std::countr_zero(m));
  return stuck("warp " + std::to_string(w) + ": not all " + std::to_string(ids.size()) +
                   " lanes reach the same " + op_name(t.op) + " (mask " + hex(t.mask) + ": lanes " +
                   lane_list(group) +
                   "); every lane a mask names must call the same operation with that mask",
               ids);
}

// Runs every unfinished thread to its end: each throws Abort at its barrier, unwinding its stack.
void Block::abandon() {
  aborting_ = true;
  while (live_ > 0) {
    for (unsigned i = 0; i < n_; ++i) {
      if (threads_[i].wait != Wait::exited) switch_to(i);
    }
  }
}

std::string Block::where_is(const SimThread& t) const {
  switch (t.wait) {
    case Wait::none:
      return "runnable";
    case Wait::exited:
      return "returned from the kernel";
    case Wait::block_barrier:
      return "wait at __syncthreads() " + site(t.site);
    case Wait::warp_op:
      return std::string("wait at ") + op_name(t.op) + " " + site(t.site) +
             (t.op == WarpOp::active ? "" : " with mask " + hex(t.mask));
  }
  return "?";
}

std::string Block::stuck(const std::string& what, unsigned first, unsigned last) const {
  std::vector<unsigned> ids(last - first);
  std::iota(ids.begin(), ids.end(), first);
  return stuck(what, ids);
}

// The report of a block that cannot go on: what, then where each of `threads` is.
std::string Block::stuck(const std::string& what, const std::vector<unsigned>& threads) const {
  std::string s = "kernel '" + std::string(launch_->name) + "' block " + xyz(blockIdx) + ": " +
                  what + "; the block cannot go on:";
  std::vector<std::pair<std::string, std::vector<unsigned>>> groups;  // where -> threads
  for (const unsigned i : threads) {
    std::string w = where_is(threads_[i]);
    auto g = std::find_if(groups.begin(), groups.end(), [&](auto& p) { return p.first == w; });
    if (g == groups.end()) {
      groups.push_back({std::move(w), {i}});
    } else {
      g->second.push_back(i);
    }
  }
  for (const auto& [w, ids] : groups) {
    s += "\n  thread" + std::string(ids.size() > 1 ? "s " : " ") + ranges(ids) + ": " + w;
  }
  if (launch_->block.y * launch_->block.z > 1) {
    s += "\n  (thread number: threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))";
  }
  return s;
}

}  // namespace cudasim::detail
