// Launching: configuration checks, the thread-order setting, and the pool of worker threads
// that share out the blocks of a grid.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cudasim/api.hpp"
#include "cudasim/block.hpp"
#include "cudasim/hooks.hpp"
#include "cudasim/memory.hpp"

namespace cudasim {
namespace {

/// OS threads that each run a job, plus the calling thread, which runs it too.
class WorkerPool {
 public:
  ~WorkerPool() { resize(1); }
  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }

  void resize(unsigned total) {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
    stop_ = false;
    for (unsigned i = 1; i < total; ++i) {
      threads_.emplace_back([this, g = generation_] { loop(g); });
    }
  }

  // Runs job on every worker and returns when all have finished. job must not throw.
  void run(const std::function<void()>& job) {
    {
      std::lock_guard lock(m_);
      job_ = &job;
      busy_ = static_cast<unsigned>(threads_.size());
      ++generation_;
    }
    wake_.notify_all();
    job();
    std::unique_lock lock(m_);
    done_.wait(lock, [&] { return busy_ == 0; });
  }

 private:
  void loop(std::uint64_t seen) {
    for (;;) {
      const std::function<void()>* job;
      {
        std::unique_lock lock(m_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      (*job)();
      std::lock_guard lock(m_);
      if (--busy_ == 0) done_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void()>* job_ = nullptr;
  std::uint64_t generation_ = 0;
  unsigned busy_ = 0;
  bool stop_ = false;
};

struct Settings {
  std::mutex m;  // also serialises launches
  ThreadOrder order;
  bool order_chosen = false;  // by set_thread_order or CUDASIM_ORDER
  std::string order_problem;  // a CUDASIM_ORDER that does not parse
  unsigned workers = 0;
  bool skipped = false;  // set_launches_skipped
  WorkerPool pool;
};

Settings& settings() {
  static Settings s;
  return s;
}

// The order CUDASIM_ORDER gives, read once: by the first launch or thread_order(), unless
// set_thread_order() came first. Called with s.m held.
void choose_order(Settings& s) {
  if (s.order_chosen) return;
  s.order_chosen = true;
  if (const char* env = std::getenv("CUDASIM_ORDER"); env != nullptr && *env != '\0') {
    if (const auto order = parse_thread_order(env)) {
      s.order = *order;
    } else {
      s.order_problem =
          std::string("CUDASIM_ORDER=") + env + " is not forward, reverse, random or random:<seed>";
    }
  }
}

struct Tally {
  std::mutex m;
  LaunchTally counts;
};

Tally& tally() {
  static Tally t;
  return t;
}

// CUDA's limits (compute capability 7.0 and later).
std::string check_config(dim3 grid, dim3 block) {
  auto dims = [](const char* what, dim3 d) {
    return std::string(what) + " (" + std::to_string(d.x) + "," + std::to_string(d.y) + "," +
           std::to_string(d.z) + ")";
  };
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return dims("gridDim", grid) + " has no blocks";
  if (block.x == 0 || block.y == 0 || block.z == 0) {
    return dims("blockDim", block) + " has no threads";
  }
  if (std::uint64_t{block.x} * block.y * block.z > 1024) {
    return dims("blockDim", block) + " has more than 1024 threads";
  }
  if (block.x > 1024 || block.y > 1024 || block.z > 64) {
    return dims("blockDim", block) + " exceeds (1024,1024,64)";
  }
  if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) {
    return dims("gridDim", grid) + " exceeds (2^31-1,65535,65535)";
  }
  return {};
}

}  // namespace

std::optional<ThreadOrder> parse_thread_order(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  ThreadOrder result;
  if (name == "forward") {
    result.order = Order::forward;
  } else if (name == "reverse") {
    result.order = Order::reverse;
  } else if (name == "random") {
    result.order = Order::random;
  } else {
    return std::nullopt;
  }
  if (colon != std::string_view::npos) {
    const std::string_view seed = text.substr(colon + 1);
    const auto [end, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), result.seed);
    if (result.order != Order::random || seed.empty() || ec != std::errc{} ||
        end != seed.data() + seed.size()) {
      return std::nullopt;
    }
  }
  return result;
}

void set_thread_order(Order order, std::uint64_t seed) {
  std::lock_guard lock(settings().m);
  settings().order = {order, seed};
  settings().order_chosen = true;
  settings().order_problem.clear();
}

ThreadOrder thread_order() {
  std::lock_guard lock(settings().m);
  choose_order(settings());
  return settings().order;
}

void set_worker_threads(unsigned count) {
  std::lock_guard lock(settings().m);
  settings().workers = count;
}

unsigned worker_threads() {
  std::lock_guard lock(settings().m);
  const unsigned n = settings().workers;
  return n != 0 ? n : std::max(std::thread::hardware_concurrency(), 1u);
}

void set_launches_skipped(bool skipped) {
  std::lock_guard lock(settings().m);
  if (skipped == settings().skipped) return;
  settings().skipped = skipped;
  if (skipped) {
    detail::keep_and_poison();
  } else {
    detail::restore_kept();
  }
}

LaunchTally take_launch_tally() {
  Tally& t = tally();
  std::lock_guard lock(t.m);
  return std::exchange(t.counts, {});
}

namespace detail {

void note_launch_failure(const std::string& detail) {
  Tally& t = tally();
  std::lock_guard lock(t.m);
  if (t.counts.failures.size() < 16) t.counts.failures.push_back(detail);  // the first ones
}

namespace {

// Counts the launch, refused or not, in the tally of take_launch_tally().
void count_launch() {
  Tally& t = tally();
  std::lock_guard lock(t.m);
  ++t.counts.launches;
}

// Fails the launch when the layer cannot run it (a bad CUDASIM_ORDER, grid, block, shared
// memory size or stream), with CUDA's error: true if so. Called with s.m held.
bool refuse(const char* name, const LaunchConfig& config, const Settings& s) {
  if (!s.order_problem.empty()) {
    fail_to_launch(cudaErrorInvalidValue, s.order_problem);
    return true;
  }
  if (const std::string why = check_config(config.grid, config.block); !why.empty()) {
    fail_to_launch(cudaErrorInvalidConfiguration, "kernel '" + std::string(name) + "': " + why);
    return true;
  }
  if (config.shared_bytes > kSharedMemoryPerBlock) {
    fail_to_launch(cudaErrorInvalidValue,
                   "kernel '" + std::string(name) + "': " + std::to_string(config.shared_bytes) +
                       " bytes of dynamic shared memory; a block has at most " +
                       std::to_string(kSharedMemoryPerBlock));
    return true;
  }
  if (!stream_valid(config.stream)) {
    fail_to_launch(cudaErrorInvalidResourceHandle,
                   "kernel '" + std::string(name) + "': the stream is not a live cudaStream_t");
    return true;
  }
  return false;
}

// The blocks are taken in the thread order too (reverse: the last first; random: shuffled
// from the seed), so that a race between blocks shows in one order or another. The shuffled
// indices of the blocks for random, up to 2^24 blocks; none otherwise.
std::vector<std::uint64_t> shuffled_blocks(const ThreadOrder& order, std::uint64_t blocks) {
  std::vector<std::uint64_t> shuffled;
  if (order.order == Order::random && blocks <= (std::uint64_t{1} << 24)) {
    shuffled.resize(blocks);
    std::iota(shuffled.begin(), shuffled.end(), std::uint64_t{0});
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(order.seed + 1));
  }
  return shuffled;
}

// How the blocks of a launch ended: the first failure, if one failed.
struct BlocksRun {
  bool failed = false;
  std::string error;
  cudaError_t code = cudaErrorLaunchFailure;
};

// Runs every block of the grid on the workers of s.pool, in s's order; after the first block
// that fails, the workers take no other block.
BlocksRun run_blocks(const LaunchInfo& info, Settings& s) {
  const dim3 grid = info.grid;
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  const std::vector<std::uint64_t> shuffled = shuffled_blocks(s.order, blocks);
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string error;
  cudaError_t code = cudaErrorLaunchFailure;
  s.pool.run([&] {
    thread_local Block runner;  // one per worker: its stacks outlive the launch
    for (std::uint64_t i = 0; !failed.load() && (i = next.fetch_add(1)) < blocks;) {
      const std::uint64_t b = !shuffled.empty()                 ? shuffled[i]
                              : s.order.order == Order::reverse ? blocks - 1 - i
                                                                : i;
      const uint3 index{static_cast<unsigned>(b % grid.x),
                        static_cast<unsigned>(b / grid.x % grid.y),
                        static_cast<unsigned>(b / grid.x / grid.y)};
      std::string why;
      cudaError_t why_code = cudaErrorLaunchFailure;
      try {
        why = runner.run(info, index);
        why_code = runner.error_code();
      } catch (const std::exception& e) {
        why = "kernel '" + std::string(info.name) + "': " + e.what();
      }
      if (!why.empty()) {
        std::lock_guard error_lock(error_mutex);
        if (!failed.exchange(true)) {
          error = std::move(why);
          code = runner.illegal_address()  ? cudaErrorIllegalAddress
                 : why_code == cudaSuccess ? cudaErrorLaunchFailure
                                           : why_code;
        }
      }
    }
  });
  return {failed.load(), std::move(error), code};
}

// Fails the launch that ran when it left memory slack, when a block failed, or when a tool
// found a problem (racecheck, initcheck): found, printed on stderr too.
void fail_if_wrong(const LaunchInfo& info, const BlocksRun& run, hooks::Observer* tools,
                   const std::string& found) {
  if (std::string slack = check_slack(&info); !slack.empty() && !run.failed) {  // memory.hpp
    fail_launch("kernel '" + std::string(info.name) + "': " + slack, cudaErrorIllegalAddress);
  } else if (run.failed) {
    // A memcheck report names the .cu line.
    fail_launch(tools != nullptr ? tools->symbolize(run.error) : run.error, run.code);
  } else if (!found.empty()) {
    std::fprintf(stderr, "%s\n", found.c_str());
    fail_launch(found, cudaErrorLaunchFailure);
  }
}

}  // namespace

void launch(const char* name, KernelCall call, const LaunchConfig& config, KernelArgs args) {
  count_launch();
  if (Block::inside_kernel()) {
    fail_to_launch(cudaErrorNotSupported, "kernel '" + std::string(name) +
                                              "' launched from device code (dynamic parallelism)");
    return;
  }
  unsigned workers = worker_threads();
  Settings& s = settings();
  std::lock_guard lock(s.m);
  choose_order(s);
  if (refuse(name, config, s) || s.skipped) return;
  const LaunchInfo info{name, call, config.grid, config.block, config.shared_bytes, s.order, args};
  hooks::Observer* const tools = hooks::installed();
  bool watch = false;
  if (tools != nullptr) workers = tools->launch_begin(info, workers, watch);  // one worker, if so
  hooks::g_watching = watch ? tools : nullptr;
  if (s.pool.size() != workers) s.pool.resize(workers);
  const BlocksRun run = run_blocks(info, s);
  std::string found;  // racecheck, initcheck
  if (hooks::g_watching != nullptr) {
    hooks::g_watching = nullptr;
    found = tools->launch_end(run.failed);
  }
  fail_if_wrong(info, run, tools, found);
}

}  // namespace detail
}  // namespace cudasim
