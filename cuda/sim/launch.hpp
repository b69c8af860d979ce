// Launching a kernel, and the two knobs of the scheduler: worker threads and thread order.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda/sim/builtins.hpp"

namespace cudasim {

/// The order in which the runnable threads of a block are resumed in each scheduling round,
/// and in which the blocks of a grid are taken by the workers (with one worker, the order they
/// run in). A missing __syncthreads() can give the right answer in one order and a wrong one
/// in another.
enum class Order { forward, reverse, random };

struct ThreadOrder {
  Order order = Order::forward;
  std::uint64_t seed = 0;  // for Order::random; each block and round shuffles from it
};

/// Overrides CUDASIM_ORDER=forward|reverse|random[:seed], which the first launch reads.
void set_thread_order(Order order, std::uint64_t seed = 0);
ThreadOrder thread_order();
/// Parses the CUDASIM_ORDER syntax; nullopt if the text is not valid.
std::optional<ThreadOrder> parse_thread_order(std::string_view text);

/// OS threads that run blocks (the launching thread is one of them). 0: hardware_concurrency.
void set_worker_threads(unsigned count);
unsigned worker_threads();

namespace detail {
struct KernelCall {
  void (*invoke)(const void* frame);  // calls the kernel with the arguments stored in frame
  const void* frame;
};
void launch(const char* name, KernelCall call, dim3 grid, dim3 block);
}  // namespace detail

/// Runs kernel(args...) on a grid of blocks and returns when every block has finished. Like
/// kernel<<<grid, block>>>(args...): errors are reported by cudaGetLastError() and
/// cudaDeviceSynchronize(), never thrown. Each CUDA thread gets its own copy of the arguments.
template <class... Params, class... Args>
void launch(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "wrong number of kernel arguments");
  struct Frame {
    void (*kernel)(Params...);
    std::tuple<std::decay_t<Params>...> args;
  };
  const Frame frame{kernel, std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...)};
  const auto invoke = [](const void* f) {
    const Frame& fr = *static_cast<const Frame*>(f);
    std::apply(fr.kernel, fr.args);
  };
  detail::launch(name, {invoke, &frame}, grid, block);
}

}  // namespace cudasim
