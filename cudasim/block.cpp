// The block scheduler: fibers, barriers, warp exchanges, and the report when a block is stuck.
#include "cudasim/block.hpp"
#include "cudasim/hooks.hpp"
#include "cudasim/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace cudasim::detail {
namespace ctx = boost::context;

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

// Wakes every sleeping fiber one last time so that it returns and gives its stack back.
Block::~Block() {
  quitting_ = true;
  for (unsigned i = 0; i < threads_.size(); ++i) {
    if (threads_[i].fiber) switch_to(i);
  }
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
    // The old fiber cannot be resumed nor unwound: keep its handle (and stack) forever.
    static auto* const graveyard = new std::vector<ctx::fiber>;
    graveyard->push_back(std::move(threads_[i].fiber));
    new_fiber(i);
  }
  crashed_.clear();
  t_block = nullptr;
  if (hooks::Observer* tools = hooks::g_watching) tools->block_end();
  return error_;
}

void Block::new_fiber(unsigned i) {
  const auto stack = stacks_.take();
  SimThread& t = threads_[i];
  t.stack_bottom = detail::stack_bottom(stack);
  // Boost's constructor runs the first lines of the fiber on the new stack and comes back. ASan
  // is told (as a switch from this stack to itself) so that it keeps no frame of them.
  void* fake_stack = nullptr;
  asan_leave(&fake_stack, os_stack_bottom_, os_stack_size_);
  t.fiber = ctx::fiber(std::allocator_arg, ctx::preallocated(stack.sp, stack.size, stack),
                       ReturnToPool{&stacks_},
                       [this, i](ctx::fiber&& from) { return body(i, std::move(from)); });
  asan_arrive(fake_stack, nullptr, nullptr);
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

// The life of one fiber: run the kernel as thread i of a block, sleep until the next block.
ctx::fiber Block::body(unsigned i, ctx::fiber&& from) {
  arrived(nullptr, std::move(from));
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
  prev_ = i;
  running_ = kScheduler;
  asan_leave(nullptr, os_stack_bottom_, os_stack_size_);  // this fiber ends
  return std::move(scheduler_);
}

// Jumps from the running context to `next`. Every context runs this (or body) to hand over,
// so the one that resumes stores the handle of the one that left: a direct, symmetric switch.
void Block::switch_to(unsigned next) {
  void* fake_stack = nullptr;
  if (next == kScheduler) {
    asan_leave(&fake_stack, os_stack_bottom_, os_stack_size_);
  } else {
    const SimThread& t = threads_[next];
    asan_leave(&fake_stack, t.stack_bottom, kStackSize);
    threadIdx = t.idx;
  }
  prev_ = running_;
  running_ = next;
  ctx::fiber& target = next == kScheduler ? scheduler_ : threads_[next].fiber;
  ctx::fiber from = std::move(target).resume();
  arrived(fake_stack, std::move(from));
}

inline void Block::arrived(void* fake_stack, ctx::fiber&& from) {
  asan_arrive(fake_stack, nullptr, nullptr);
  (prev_ == kScheduler ? scheduler_ : threads_[prev_].fiber) = std::move(from);
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
  if (mask != 0xffffffffu || width < 1 || width > 32 || (width & (width - 1))) {
    unsupported(op, mask, width, where);
  }
  SimThread& t = threads_[running_];
  t.wait = Wait::warp_op;
  t.op = op;
  t.site = where;
  t.value = bits;
  t.lane_arg = lane_arg;
  t.width = static_cast<std::uint8_t>(width);
  ++at_warp_op_[running_ / 32];
  wait();
  return t.result;
}

void Block::unsupported(WarpOp op, unsigned mask, int width, std::source_location where) const {
  const std::string at = std::string(op_name(op)) + " at " + site(where) + ": ";
  if (mask != 0xffffffffu) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", mask);
    throw std::invalid_argument(at + "mask " + hex +
                                "; cudasim supports only the full mask 0xffffffff");
  }
  throw std::invalid_argument(at + "width " + std::to_string(width) +
                              " is not a power of 2 in [1, 32]");
}

// Called when no thread can run: opens the warp barriers that are complete, else __syncthreads().
void Block::release() {
  bool opened = false;
  for (unsigned w = 0; w < at_warp_op_.size(); ++w) {
    if (at_warp_op_[w] == 0) continue;
    if (!exchange(w)) return;
    opened = true;
  }
  if (opened) return;
  // Nobody is runnable and nobody waits at a warp operation: the live threads all wait at a
  // __syncthreads(). It opens only if no thread has returned and all wait at the same one.
  bool same = live_ == n_;
  for (unsigned i = 1; same && i < n_; ++i) same = same_site(threads_[i].site, threads_[0].site);
  if (!same) {
    error_ = stuck("__syncthreads() is not reached by every thread of the block", 0, n_);
    return;
  }
  std::uint64_t count = 0;  // for __syncthreads_count/and/or
  for (unsigned i = 0; i < n_; ++i) count += threads_[i].value;
  for (unsigned i = 0; i < n_; ++i) {
    threads_[i].wait = Wait::none;
    threads_[i].result = count;
  }
  if (hooks::Observer* tools = hooks::g_watching) tools->block_synced();
}

// Opens the barrier of warp w if all its lanes wait at the same operation, doing the exchange.
// The last warp of a block may be partial (blockDim 100: lanes 0-3 of warp 3): a lane that
// would read a missing lane keeps its own value.
bool Block::exchange(unsigned w) {
  SimThread* lane = &threads_[w * 32];
  const unsigned count = lanes(w);
  for (unsigned l = 0; l < count; ++l) {
    if (lane[l].wait == Wait::warp_op && lane[l].op == WarpOp::active) return active_lanes(w);
  }
  bool same = at_warp_op_[w] == count;
  for (unsigned l = 1; same && l < count; ++l) {
    same = lane[l].op == lane[0].op && same_site(lane[l].site, lane[0].site);
  }
  if (!same) {
    error_ = stuck("warp " + std::to_string(w) + ": not all " + std::to_string(count) +
                       " lanes reach the same " + op_name(lane[0].op) +
                       " (the simulator supports only the full mask)",
                   w * 32, w * 32 + count);
    return false;
  }
  unsigned ballot = 0;
  for (unsigned l = 0; l < count; ++l) ballot |= (lane[l].value != 0 ? 1u : 0u) << l;
  const unsigned everyone = count == 32 ? ~0u : (1u << count) - 1;
  for (unsigned l = 0; l < count; ++l) {
    switch (lane[l].op) {
      case WarpOp::ballot:
        lane[l].result = ballot;
        break;
      case WarpOp::any:
        lane[l].result = ballot != 0;
        break;
      case WarpOp::all:
        lane[l].result = ballot == everyone;
        break;
      default: {
        const unsigned src = source_lane(lane[l].op, l, lane[l].lane_arg, lane[l].width);
        lane[l].result = lane[src < count ? src : l].value;
      }
    }
  }
  for (unsigned l = 0; l < count; ++l) lane[l].wait = Wait::none;
  at_warp_op_[w] = 0;
  if (hooks::Observer* tools = hooks::g_watching) tools->warp_synced(w);
  return true;
}

// __activemask(): opens when each lane of warp w waits at the same one or has returned; the
// result is the mask of the lanes that wait there.
bool Block::active_lanes(unsigned w) {
  SimThread* lane = &threads_[w * 32];
  const unsigned count = lanes(w);
  const SimThread* first = nullptr;
  unsigned mask = 0;
  bool same = true;
  for (unsigned l = 0; l < count; ++l) {
    if (lane[l].wait == Wait::exited) continue;
    if (first == nullptr) first = &lane[l];
    same = same && lane[l].wait == Wait::warp_op && lane[l].op == WarpOp::active &&
           same_site(lane[l].site, first->site);
    mask |= 1u << l;
  }
  if (!same) {
    error_ = stuck("warp " + std::to_string(w) +
                       ": lanes that have not returned wait at different places, one of them "
                       "at __activemask()",
                   w * 32, w * 32 + count);
    return false;
  }
  for (unsigned l = 0; l < count; ++l) {
    if (lane[l].wait == Wait::exited) continue;
    lane[l].result = mask;
    lane[l].wait = Wait::none;
  }
  at_warp_op_[w] = 0;
  if (hooks::Observer* tools = hooks::g_watching) tools->warp_synced(w);
  return true;
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
      return std::string("wait at ") + op_name(t.op) + " " + site(t.site);
  }
  return "?";
}

std::string Block::stuck(const std::string& what, unsigned first, unsigned last) const {
  std::string s = "kernel '" + std::string(launch_->name) + "' block " + xyz(blockIdx) + ": " +
                  what + "; the block cannot go on:";
  std::vector<std::pair<std::string, std::vector<unsigned>>> groups;  // where -> threads
  for (unsigned i = first; i < last; ++i) {
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
