// Fiber stacks: mmap'ed once per worker, with a guard page, then reused for every block.
#include "cudasim/fiber_stack.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace cudasim::detail {
namespace {

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

StackPool::~StackPool() {
  for (const auto& s : free_) {
    munmap(static_cast<char*>(s.sp) - s.size - page_size(), s.size + page_size());
  }
}

boost::context::stack_context StackPool::take() {
  if (!free_.empty()) {
    const auto stack = free_.back();
    free_.pop_back();
    return stack;
  }
  const std::size_t guard = page_size();
  void* base = mmap(nullptr, guard + kStackSize, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  mprotect(base, guard, PROT_NONE);  // the lowest page: stacks grow down into it
  boost::context::stack_context stack;
  stack.size = kStackSize;
  stack.sp = static_cast<char*>(base) + guard + kStackSize;  // sp is the top
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
