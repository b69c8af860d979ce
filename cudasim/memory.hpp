// Device memory with guard pages, and the report of a kernel's bad memory access (internal to
// cudasim). Each cudaMalloc allocation has pages of its own:
//
//   [ guard, 64 KiB ][ slack | the allocation, 256-byte aligned | slack < 256 ][ guard, 64 KiB ]
//                      \__ rest of the first page                             /
//
// The end of the allocation (rounded up to 256 bytes, CUDA's alignment) touches the guard above
// it, so a kernel that reads or writes past the end faults at once, usually at the first
// element too many. An access that falls in the slack instead (past an end that is not a
// multiple of 256 bytes, or below a start that is not at a page boundary) does not fault: the
// slack is filled with 0xff bytes, a read gives a NaN, and a write is found after the kernel
// ends by check_slack(), without the block and thread that wrote.
//
// A fault inside a kernel (guard page, null or wild pointer) is turned into a launch failure:
// the SIGSEGV handler makes the faulting CUDA thread call on_fault(), which describes the access
// like compute-sanitizer's memcheck and ends that thread. The rest of the program goes on.
// x86-64 Linux only; elsewhere a bad access crashes the program as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cudasim::detail {

/// New device memory of `size` bytes (> 0), every byte 0xff; nullptr if there is no memory.
void* allocate(std::size_t size);
/// Frees an allocation; false if p is not the start of a live one.
bool release(void* p);
/// True if [p, p + count) lies inside one live allocation.
bool inside_allocation(const void* p, std::size_t count);
struct LaunchInfo;
/// Where `address` lies: "12 bytes past the end of a 3,072-byte allocation at 0x...", or
/// "not inside or near any cudaMalloc allocation" (or "a null pointer"). With the launch, the
/// allocation is also named by the kernel argument that points into it (", passed as argument
/// 1 'out'", see passed_as in block.hpp).
std::string describe_address(std::uintptr_t address, const LaunchInfo* launch = nullptr);
/// Looks for bytes written in the slack of every allocation (see above), repaints it, and
/// describes the first one found ("" if none), naming the launch's argument as above.
std::string check_slack(const LaunchInfo* launch = nullptr);
/// A live allocation as the tools see it (cudasim/tools): its bytes, its whole mapping (guards
/// included), and for initcheck one bit per byte, set once something wrote it (nullptr when the
/// allocation was made with initcheck off: then every byte counts as written).
struct AllocationView {
  std::uintptr_t start;
  std::size_t size;
  std::uintptr_t map_begin, map_end;
  std::uint64_t* written;
};
/// Every live allocation, by start address.
std::vector<AllocationView> allocation_views();
/// A `__device__` or `__constant__` variable (registered by cu2cpp.py's output, see
/// SymbolRegistration in device.hpp): global or constant memory for the tools. file: the .cu
/// file, as __FILE__ names it.
struct SymbolView {
  std::uintptr_t start;
  std::size_t size;
  const char* name;
  bool constant;
  const char* file;
  int line;
};
/// Every registered variable, by start address.
std::vector<SymbolView> symbol_views();
/// A file-scope `__shared__` variable: `address()` gives the calling worker's copy.
struct SharedSymbol {
  void* (*address)();
  std::size_t size;
  const char* name;
};
const std::vector<SharedSymbol>& shared_symbols();
/// For initcheck: [p, p + count) of a device allocation was written by the host (cudaMemcpy,
/// cudaMemset). Nothing happens for a range outside the allocations.
void note_written(const void* p, std::size_t count);
/// For set_launches_skipped (launch.hpp): keeps what every live allocation holds and fills it
/// with 0xff bytes; restore_kept() puts the bytes back into those still live, and forgets them.
void keep_and_poison();
void restore_kept();
/// Installs the SIGSEGV handler (once per process) and, if the calling OS thread has none, an
/// alternate signal stack. Called by every OS thread that runs blocks.
void prepare_fault_handling();

}  // namespace cudasim::detail
