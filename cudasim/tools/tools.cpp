// The tools' switch (CUDASIM_TOOLS), where an access falls (global or shared memory), memcheck
// and initcheck; racecheck and profile have files of their own.
#include "cudasim/tools.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "cudasim/block.hpp"
#include "cudasim/memory.hpp"
#include "cudasim/tools/internal.hpp"

namespace cudasim {
namespace tools {

bool g_active = false;

namespace {

struct Settings {
  std::mutex m;
  bool chosen = false;  // by set_tools or CUDASIM_TOOLS
  unsigned mask = 0;
  void (*sink)(const std::string&) = nullptr;
};
Settings& settings() {
  static auto* s = new Settings;
  return *s;
}

// The state of the running launch (launches are serialised; a tool launch has one worker).
struct Launch {
  const detail::LaunchInfo* info = nullptr;
  unsigned mask = 0;
  std::vector<detail::AllocationView> allocations;  // sorted by start
  std::vector<detail::SymbolView> symbols;          // __device__, __constant__: by start
  std::vector<Region> shared;                       // this block's __shared__ variables
  std::string initcheck;                            // the first uninitialised read
  std::uint64_t uninitialised_reads = 0;
};
Launch g_launch;

unsigned linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

std::string hex(std::uintptr_t a) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(a));
  return text;
}

std::string bytes(std::uint64_t n) { return with_commas(n) + (n == 1 ? " byte" : " bytes"); }

// Where [a, a + size) falls, and (for memcheck) whether it lies wholly inside.
struct Found {
  Region region;
  const detail::AllocationView* allocation = nullptr;
  bool inside = true;
};

Found classify(std::uintptr_t a, std::size_t size) {
  Found f;
  const auto dynamic = reinterpret_cast<std::uintptr_t>(detail::t_dynamic_shared);
  if (a - dynamic < kSharedMemoryPerBlock) {
    f.region = {Space::shared, dynamic, g_launch.info->shared_bytes, "extern __shared__"};
    f.inside = a - dynamic + size <= g_launch.info->shared_bytes;
    return f;
  }
  for (const Region& r : g_launch.shared) {
    if (a - r.start < r.size) {
      f.region = r;
      return f;
    }
  }
  const auto& all = g_launch.allocations;
  auto it = std::upper_bound(all.begin(), all.end(), a,
                             [](std::uintptr_t x, const auto& v) { return x < v.map_begin; });
  if (it != all.begin() && a < std::prev(it)->map_end) {
    --it;
    f.region = {Space::global, it->start, it->size};
    f.allocation = &*it;
    f.inside = a >= it->start && a + size <= it->start + it->size;
    return f;
  }
  const auto& symbols = g_launch.symbols;
  auto s = std::upper_bound(symbols.begin(), symbols.end(), a,
                            [](std::uintptr_t x, const auto& v) { return x < v.start; });
  if (s != symbols.begin() && a - std::prev(s)->start < std::prev(s)->size) {
    --s;
    f.region = {s->constant ? Space::constant : Space::global,
                s->start,
                s->size,
                s->name,
                s->file,
                s->line};
    f.inside = a + size <= s->start + s->size;
  }
  return f;
}

[[noreturn]] void out_of_bounds(std::uintptr_t a, std::size_t size, unsigned kind,
                                std::uintptr_t pc, const Found& f) {
  thread_local std::string what;  // this frame is never left (crash_running_thread)
  what = std::string("invalid ") + ((kind & kWrite) != 0 ? "write" : "read") + " of " +
         bytes(size) + " at " + hex(a) + ", ";
  if (f.region.space == Space::shared) {
    what += "offset " + with_commas(a - f.region.start) + " of the dynamic shared memory, " +
            "which has " + bytes(f.region.size) + " (the launch's third <<< >>> argument)";
  } else if (f.region.name != nullptr) {
    what += describe(f.region, a) + ", and past its end";
  } else {
    what += detail::describe_address(a, g_launch.info);
  }
  what += " " + pc_token(pc) + " (memcheck)";
  detail::Block::crash_running_thread(what);
}

void initcheck_access(std::uintptr_t a, std::size_t size, unsigned kind, std::uintptr_t pc,
                      const Found& f) {
  std::uint64_t* const bits = f.allocation->written;
  if (bits == nullptr) return;
  const std::size_t from = a - f.allocation->start;
  for (std::size_t i = from; i < from + size; ++i) {
    std::uint64_t& word = bits[i / 64];
    const std::uint64_t bit = std::uint64_t{1} << (i % 64);
    if ((kind & kWrite) != 0) {
      word |= bit;
    } else if ((word & bit) == 0) {
      if (g_launch.uninitialised_reads++ == 0) {
        g_launch.initcheck = "block " + xyz(blockIdx) + " thread " + thread_name(linear_tid()) +
                             ": uninitialised read of " + bytes(size) + " at " + hex(a) + ", " +
                             describe(f.region, a) + ", " + pc_token(pc) +
                             ": no cudaMemcpy, cudaMemset or kernel " + "store wrote byte " +
                             with_commas(i) + " of it";
      }
      return;
    }
  }
}

}  // namespace

std::string with_commas(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
    s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string xyz(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string thread_name(unsigned tid) {
  const dim3 b = g_launch.info->block;
  return "(" + std::to_string(tid % b.x) + "," + std::to_string(tid / b.x % b.y) + "," +
         std::to_string(tid / (b.x * b.y)) + ")";
}

const detail::LaunchInfo& current_launch() { return *g_launch.info; }

std::string describe(const Region& r, std::uintptr_t address) {
  if (r.space == Space::shared) {
    return "shared memory" + (r.name != nullptr ? std::string(" '") + r.name + "'" : "") +
           " at offset " + with_commas(address - r.start) + " (of " + bytes(r.size) + ")";
  }
  if (r.name != nullptr) {  // a __device__ or __constant__ variable
    return std::string(r.space == Space::constant ? "__constant__" : "__device__") + " variable '" +
           r.name + "' at offset " + with_commas(address - r.start) + " (of " + bytes(r.size) +
           ", declared at " + short_path(r.file) + ":" + std::to_string(r.line) + ")";
  }
  return "global memory at offset " + with_commas(address - r.start) + " of a " +
         with_commas(r.size) + "-byte allocation at " + hex(r.start) +
         detail::passed_as(*g_launch.info, r.start, r.size);  // ", passed as argument 2 'out'"
}

void on_access(const volatile void* p, std::size_t size, unsigned kind, std::uintptr_t pc) {
  if (!detail::Block::inside_kernel()) return;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const Found f = classify(a, size);
  if (f.region.space == Space::none) return;  // the thread's stack, host memory, a symbol
  const unsigned mask = g_launch.mask;
  if (!f.inside && (mask & memcheck) != 0) out_of_bounds(a, size, kind, pc, f);
  if (!f.inside) return;
  const unsigned tid = linear_tid();
  if ((mask & initcheck) != 0 && f.allocation != nullptr) initcheck_access(a, size, kind, pc, f);
  if ((mask & racecheck) != 0 && f.region.space != Space::constant) {
    race::access(a, size, kind, pc, tid, f.region);
  }
  if ((mask & profile) != 0) prof::access(a, size, kind, pc, tid, f.region.space);
}

namespace {

// The tools need kernels compiled with their instrumentation (cudasim/CMakeLists.txt). A program
// without it (a *_plain test program, the sanitize preset, -DCUDASIM_WITH_TOOLS=OFF) says so once,
// rather than checking nothing in silence.
void warn_if_not_instrumented() {
  const unsigned asked = enabled_tools();
  if (asked == 0 || tools_available()) return;
  static std::once_flag once;
  std::call_once(once, [asked] {
    std::string names;
    for (const auto& [tool, name] : {std::pair{memcheck, "memcheck"},
                                     {racecheck, "racecheck"},
                                     {initcheck, "initcheck"},
                                     {profile, "profile"}}) {
      if ((asked & tool) != 0) names += (names.empty() ? "" : ",") + std::string(name);
    }
    std::fprintf(stderr,
                 "cudasim: tools asked for (%s), but this program's kernels were compiled "
                 "without their instrumentation (a *_plain test program, the sanitize preset or "
                 "-DCUDASIM_WITH_TOOLS=OFF): no tool runs. Run the program without _plain "
                 "(cudasim/README.md, \"Tools\").\n",
                 names.c_str());
  });
}

// The tools as the layer's observer (cudasim/hooks.hpp), installed before main() runs.
class Tools final : public hooks::Observer {
 public:
  unsigned launch_begin(const detail::LaunchInfo& launch, unsigned workers, bool& watch) override {
    warn_if_not_instrumented();
    g_launch.mask = tools_available() ? enabled_tools() : 0;
    watch = g_launch.mask != 0;
    if (!watch) return workers;
    g_launch.info = &launch;
    g_launch.allocations = detail::allocation_views();
    g_launch.symbols = detail::symbol_views();
    g_launch.shared.clear();
    g_launch.initcheck.clear();
    g_launch.uninitialised_reads = 0;
    if ((g_launch.mask & racecheck) != 0) race::launch_begin();
    if ((g_launch.mask & profile) != 0) prof::launch_begin();
    g_active = true;
    return 1;
  }

  void block_begin(uint3, unsigned threads) override {
    g_launch.shared.clear();
    for (const detail::SharedSymbol& s : detail::shared_symbols()) {  // file-scope __shared__
      g_launch.shared.push_back(
          {Space::shared, reinterpret_cast<std::uintptr_t>(s.address()), s.size, s.name});
    }
    if ((g_launch.mask & racecheck) != 0) race::block_begin(threads);
    if ((g_launch.mask & profile) != 0) prof::block_begin(threads);
  }

  void block_end() override {
    if ((g_launch.mask & profile) != 0) prof::block_synced();
  }

  void block_synced() override {
    if ((g_launch.mask & racecheck) != 0) race::block_synced();
    if ((g_launch.mask & profile) != 0) prof::block_synced(), prof::barrier_passed();
  }

  void warp_synced(unsigned w) override {
    if ((g_launch.mask & racecheck) != 0) race::warp_synced(w);
    if ((g_launch.mask & profile) != 0) prof::warp_synced(w);
  }

  void tile_synced(unsigned first, unsigned count) override {
    if ((g_launch.mask & racecheck) != 0) race::tile_synced(first, count);
  }

  void shared_declared(const void* p, std::size_t size, const char* name) override {
    g_launch.shared.push_back({Space::shared, reinterpret_cast<std::uintptr_t>(p), size, name});
  }

  std::string launch_end(bool failed) override {
    if (!g_active) return {};
    g_active = false;
    std::string found;
    const std::string kernel = "kernel '" + std::string(g_launch.info->name) + "' ";
    if ((g_launch.mask & racecheck) != 0 && !failed) found = race::report();
    if (found.empty() && !failed && !g_launch.initcheck.empty()) {
      found = kernel + g_launch.initcheck + " (initcheck; " +
              with_commas(g_launch.uninitialised_reads) + " uninitialised read" +
              (g_launch.uninitialised_reads == 1 ? "" : "s") + " in this launch)";
    }
    if ((g_launch.mask & profile) != 0) {
      const std::string report = prof::report();
      void (*sink)(const std::string&) = nullptr;
      {
        std::lock_guard lock(settings().m);
        sink = settings().sink;
      }
      if (sink != nullptr) {
        sink(report);
      } else if (const char* file = std::getenv("CUDASIM_PROFILE_FILE"); file != nullptr && *file) {
        if (std::FILE* out = std::fopen(file, "a")) {
          std::fputs(report.c_str(), out);
          std::fclose(out);
        } else {  // the profile is not lost: it goes to stderr, with the reason
          std::fprintf(stderr,
                       "cudasim: cannot append to CUDASIM_PROFILE_FILE=%s (%s); the profile:\n",
                       file, std::strerror(errno));
          std::fputs(report.c_str(), stderr);
        }
      } else {
        std::fputs(report.c_str(), stderr);
      }
    }
    g_launch.allocations.clear();
    return symbolize_text(found);
  }

  bool allocated(const void*, std::size_t) override {
    return (enabled_tools() & initcheck) != 0;  // initcheck keeps a bit per byte
  }

  std::string symbolize(const std::string& text) override { return symbolize_text(text); }
};

Tools g_tools;

}  // namespace

// Installs the tools before main() runs. Every program links this file, so that the tools are
// there even when nothing else in it calls them (a program whose kernels were compiled without
// the instrumentation must still say that no tool runs): the layer's CMake target and nvcc-cpu
// link with -Wl,--undefined=cudasim_tools_installed.
extern "C" const bool cudasim_tools_installed = (hooks::install(&g_tools), true);

}  // namespace tools

std::optional<unsigned> parse_tools(std::string_view text) {
  unsigned mask = 0;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view name = text.substr(0, comma);
    if (name == "memcheck") {
      mask |= memcheck;
    } else if (name == "racecheck") {
      mask |= racecheck;
    } else if (name == "initcheck") {
      mask |= initcheck;
    } else if (name == "profile") {
      mask |= profile;
    } else if (name != "none" && !name.empty()) {
      return std::nullopt;
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return mask;
}

void set_tools(unsigned mask) {
  std::lock_guard lock(tools::settings().m);
  tools::settings().mask = mask;
  tools::settings().chosen = true;
}

unsigned enabled_tools() {
  auto& s = tools::settings();
  std::lock_guard lock(s.m);
  if (!s.chosen) {  // the first call reads CUDASIM_TOOLS
    s.chosen = true;
    if (const char* env = std::getenv("CUDASIM_TOOLS"); env != nullptr && *env != '\0') {
      if (const auto mask = parse_tools(env)) {
        s.mask = *mask;
      } else {
        std::fprintf(stderr,
                     "cudasim: CUDASIM_TOOLS=%s: each name must be memcheck, racecheck, "
                     "initcheck, profile or none; the tools stay off\n",
                     env);
      }
    }
  }
  return s.mask;
}

namespace tools {
bool g_instrumented = false;  // set by the constructor of every instrumented translation unit
}

bool tools_available() { return tools::g_instrumented; }

void set_profile_sink(void (*sink)(const std::string& report)) {
  std::lock_guard lock(tools::settings().m);
  tools::settings().sink = sink;
}

}  // namespace cudasim
