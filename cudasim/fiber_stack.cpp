// Fiber stacks: mmap'ed once per worker, with a guard page, then reused for every block.
#include "cudasim/fiber_stack.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

namespace cudasim::detail {
namespace {

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// Cache colouring. A suspended thread's hottest bytes (its saved registers, the frames of the
// barrier it waits at) lie just under the top of its stack, and every switch touches them. Were
// all stacks a whole number of pages apart, those bytes would sit at the same address modulo
// 4 KiB (and 64 KiB) in every stack: the same few sets of the L1 and L2 caches, where the 256
// threads of a block would evict one another at each switch. So the n-th stack's top is put
// n x 1,280 bytes (mod 64 KiB) below a 64 KiB boundary: 1,280 is 5 x 256, 5 being odd, so
// 256 stacks in a row get 256 different places, each 1,280 bytes from the next (more than the
// frames a waiting thread touches).
constexpr std::size_t kColourSpan = 64 * 1024;  // the L2's set stride (1 MiB, 16 ways) or more
constexpr std::size_t kColourStep = 5 * 256;

std::uintptr_t page_floor(std::uintptr_t a) { return a & ~(page_size() - 1); }
std::uintptr_t page_ceil(std::uintptr_t a) { return page_floor(a + page_size() - 1); }

// The mapping that holds a stack: its guard page, then up to its top's page.
std::uintptr_t mapping_start(const boost::context::stack_context& s) {
  return page_floor(reinterpret_cast<std::uintptr_t>(stack_bottom(s))) - page_size();
}
std::uintptr_t mapping_end(const boost::context::stack_context& s) {
  return page_ceil(reinterpret_cast<std::uintptr_t>(s.sp));
}

}  // namespace

StackPool::~StackPool() {
  for (const auto& s : free_) {
    munmap(reinterpret_cast<void*>(mapping_start(s)), mapping_end(s) - mapping_start(s));
  }
}

boost::context::stack_context StackPool::take() {
  if (!free_.empty()) {
    const auto stack = free_.back();
    free_.pop_back();
    return stack;
  }
  // Maps room for any colour, then gives back the pages below the guard and above the top.
  const std::size_t length = page_size() + kStackSize + kColourSpan + page_size();
  void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(base), end = start + length;
  const std::size_t colour = kColourSpan - made_++ * kColourStep % kColourSpan;
  const std::uintptr_t lowest_top = start + page_size() + kStackSize;
  const std::uintptr_t top = lowest_top + (colour - lowest_top % kColourSpan) % kColourSpan;
  boost::context::stack_context stack;
  stack.size = kStackSize;
  stack.sp = reinterpret_cast<void*>(top);  // sp is the top: top % 64 KiB == colour % 64 KiB
  const std::uintptr_t guard = mapping_start(stack);
  if (guard > start) munmap(base, guard - start);
  if (end > mapping_end(stack)) {
    munmap(reinterpret_cast<void*>(mapping_end(stack)), end - mapping_end(stack));
  }
  mprotect(reinterpret_cast<void*>(guard), page_size(), PROT_NONE);  // stacks grow down into it
  return stack;
}

void os_thread_stack(const void** bottom, std::size_t* size) {
  pthread_attr_t attr;
  void* address = nullptr;
  *size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &address, size);
    pthread_attr_destroy(&attr);
  }
  *bottom = address;
}

void StackPool::give(boost::context::stack_context stack) noexcept {
#if defined(CUDASIM_ASAN)
  // Frames that never returned normally (Boost's entry frame) leave red-zone poison behind.
  __asan_unpoison_memory_region(stack_bottom(stack), stack.size);
#endif
  free_.push_back(stack);
}

}  // namespace cudasim::detail
