// Fiber stacks, reused from block to block, and the AddressSanitizer calls that announce every
// switch between stacks (Debian's Boost.Context is built without ASan support, so we do it).
#pragma once

#include <cstddef>
#include <vector>

#include <boost/context/stack_context.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define CUDASIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDASIM_ASAN 1
#endif
#endif
#if defined(CUDASIM_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace cudasim::detail {

#if defined(CUDASIM_ASAN)
inline constexpr std::size_t kStackSize = 512 * 1024;  // ASan's red zones make frames larger
#else
inline constexpr std::size_t kStackSize = 128 * 1024;  // per CUDA thread
#endif

/// Stacks for the CUDA threads of one worker. Each has a guard page below it, so a stack
/// overflow crashes instead of corrupting a neighbour. Not thread-safe: one pool per worker.
class StackPool {
 public:
  StackPool() = default;
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;
  ~StackPool();
  boost::context::stack_context take();
  void give(boost::context::stack_context stack) noexcept;

 private:
  std::vector<boost::context::stack_context> free_;
  std::size_t made_ = 0;  // stacks mapped so far: the next one's cache colour (fiber_stack.cpp)
};

inline const void* stack_bottom(const boost::context::stack_context& s) {
  return static_cast<const char*>(s.sp) - s.size;
}

/// The calling OS thread's own stack (what ASan must be told when a fiber switches back to it).
void os_thread_stack(const void** bottom, std::size_t* size);

// Call asan_leave just before switching to the stack [bottom, bottom + size) and asan_arrive
// just after arriving. `fake_stack` is nullptr when leaving a fiber for good.
inline void asan_leave([[maybe_unused]] void** fake_stack, [[maybe_unused]] const void* bottom,
                       [[maybe_unused]] std::size_t size) {
#if defined(CUDASIM_ASAN)
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#endif
}
inline void asan_arrive([[maybe_unused]] void* fake_stack,
                        [[maybe_unused]] const void** from_bottom,
                        [[maybe_unused]] std::size_t* from_size) {
#if defined(CUDASIM_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack, from_bottom, from_size);
#endif
}

}  // namespace cudasim::detail
