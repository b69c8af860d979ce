// What the scheduler and the instrumentation hooks tell the tools (internal to cudasim).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudasim/builtins.hpp"
#include "cudasim/hooks.hpp"
#include "cudasim/tools.hpp"

namespace cudasim::detail {
struct LaunchInfo;
}

namespace cudasim::tools {

/// True while a launch runs with a tool on: only then do the access hooks (access_hooks.cpp)
/// look at an access. Written between launches only (launches are serialised).
extern bool g_active;
/// Set when a translation unit compiled with the instrumentation starts (__tsan_init).
extern bool g_instrumented;

enum Kind : unsigned { kRead = 1, kWrite = 2, kAtomic = 4 };

/// One access by the running code: `size` bytes at p. pc: the return address of the hook.
void on_access(const volatile void* p, std::size_t size, unsigned kind, std::uintptr_t pc);

/// The memory an access falls in.
enum class Space : std::uint8_t { none, global, shared, constant };
struct Region {
  Space space = Space::none;
  std::uintptr_t start = 0;
  std::size_t size = 0;
  const char* name = nullptr;  // a __shared__, __device__ or __constant__ variable's name
  const char* file = nullptr;  // where a __device__ or __constant__ variable is declared
  int line = 0;
};
/// "shared memory 'partial' at offset 4 (of 1,024 bytes)", "global memory at offset 12 of a
/// 1,024-byte allocation at 0x..."
std::string describe(const Region& r, std::uintptr_t address);
/// "(x,y,z)": a block index as reports write it.
std::string xyz(uint3 v);
/// "(5,0,0)": thread number `tid` of the running block (threadIdx.x + blockDim.x * (...)).
std::string thread_name(unsigned tid);
/// The kernel's name, grid, block and dynamic shared bytes of the running launch.
const detail::LaunchInfo& current_launch();
std::string with_commas(std::uint64_t n);

// racecheck (race.cpp) and profile (profile.cpp): the same events as above.
namespace race {
void launch_begin();
void block_begin(unsigned threads);
void block_synced();
void warp_synced(unsigned w);
void tile_synced(unsigned first, unsigned count);
void access(std::uintptr_t a, std::size_t size, unsigned kind, std::uintptr_t pc, unsigned tid,
            const Region& r);
std::string report();  // "" if no hazard
}  // namespace race
namespace prof {
void launch_begin();
void block_begin(unsigned threads);
void block_synced();
void warp_synced(unsigned w);
void barrier_passed();  // a __syncthreads of the block
void access(std::uintptr_t a, std::size_t size, unsigned kind, std::uintptr_t pc, unsigned tid,
            Space space);
std::string report();
std::string fixed(double x, int digits);  // "4.0"
std::string duration(double seconds);     // "82.0 ns", "1.28 us", "3.00 ms"
}  // namespace prof

/// A source file's name relative to the project ("kernels/scale.cu"), as reports show it.
std::string short_path(const std::string& file);
/// "kernels/scale.cu:33": the line of the kernel code that a return address `pc` comes back to
/// ("code address 0x..." when the program has no line information).
std::string where(std::uintptr_t pc);
/// Resolves many addresses at once (one addr2line run), so that where() is quick for them.
void prefetch_lines(const std::vector<std::uintptr_t>& pcs);
/// Replaces each "{pc:0x...}" in `text` by the .cu file and line of that code address.
std::string symbolize_text(const std::string& text);
/// "{pc:0x...}" for an address, to be replaced by symbolize_text later (on the OS stack).
using hooks::pc_token;

}  // namespace cudasim::tools
