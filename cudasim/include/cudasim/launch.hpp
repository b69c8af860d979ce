// Launching a kernel, and the two knobs of the scheduler: worker threads and thread order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cudasim/api.hpp"
#include "cudasim/builtins.hpp"
#include "cudasim/device.hpp"

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

/// Overrides CUDASIM_ORDER=forward|reverse|random[:seed], which the first launch or
/// thread_order() reads.
void set_thread_order(Order order, std::uint64_t seed = 0);
ThreadOrder thread_order();
/// Parses the CUDASIM_ORDER syntax; nullopt if the text is not valid.
std::optional<ThreadOrder> parse_thread_order(std::string_view text);

/// OS threads that run blocks (the launching thread is one of them). 0: hardware_concurrency.
void set_worker_threads(unsigned count);
unsigned worker_threads();

/// What this process's launches did since the last call, which starts a new count: the
/// kernels launched (every <<<...>>>, whatever became of it) and the error text of each launch
/// that failed (a memcheck or racecheck report, a trap, a bad configuration). For a program that
/// reports on the calls it serves, such as the course's piece runner (grader/remote/runner.cpp):
/// the caller of a launch may have caught and dropped its error, the tally keeps it.
struct LaunchTally {
  std::uint64_t launches = 0;
  std::vector<std::string> failures;
};
LaunchTally take_launch_tally();

/// While on, a launch is counted and its configuration checked, but no block runs; and every
/// device allocation live when it was turned on reads as 0xff bytes (NaN floats) until it is
/// turned off, when what each held comes back. For a program that grades CUDA code (the
/// course's piece runner, grader/remote/runner.cpp): a call run again this way whose answer is
/// the same as with its kernels was computed on the host. A buffer kept from an earlier call
/// cannot stand in for the kernels' work.
void set_launches_skipped(bool skipped);

namespace detail {
struct KernelCall {
  void (*invoke)(const void* frame);  // calls the kernel with the arguments stored in frame
  const void* frame;
};

/// What goes between <<< and >>>: grid, block, dynamic shared memory in bytes, stream.
struct LaunchConfig {
  dim3 grid, block;
  std::size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
  LaunchConfig(dim3 g, dim3 b, std::size_t shared = 0, cudaStream_t s = nullptr)
      : grid(g), block(b), shared_bytes(shared), stream(s) {}
};

/// The launch's arguments as the tools name them: the value of each pointer argument (nullptr
/// for the others), and the kernel's parameter names ("in,out,n"; nullptr if not known).
struct KernelArgs {
  const void* const* pointers = nullptr;
  unsigned count = 0;
  const char* names = nullptr;
};

void launch(const char* name, KernelCall call, const LaunchConfig& config, KernelArgs args = {});

template <class T>
const void* pointer_value(const T& value) {
  if constexpr (std::is_pointer_v<T> && std::is_object_v<std::remove_pointer_t<T>>) {
    return const_cast<const void*>(static_cast<const volatile void*>(value));
  } else {
    return nullptr;
  }
}

/// kernel<<<config>>>(args...) as rewritten by cudasim/cu2cpp.py: runs
/// the grid and returns when every block has finished. Errors are reported by
/// cudaGetLastError() and cudaDeviceSynchronize(), never thrown.
/// `kernel` is a lambda that calls the kernel by name, so C++ picks the overload and deduces
/// template arguments as nvcc does. Each CUDA thread calls it on its own copies of the
/// arguments. `mismatch` holds a static_assert naming the kernel: the one message a student
/// sees when the arguments do not fit the kernel's parameters.
/// `params`: the kernel's parameter names, if cu2cpp.py found its definition ("in,out,n").
template <class Kernel, class Mismatch, class... Args>
void launch_chevron(const LaunchConfig& config, const char* name, const char* params, Kernel kernel,
                    Mismatch mismatch, Args&&... args) {
  constexpr bool fits = std::is_invocable_v<const Kernel&, const std::decay_t<Args>&...>;
  mismatch(std::bool_constant<fits>{});
  if constexpr (fits) {
    struct Frame {
      Kernel kernel;
      std::tuple<std::decay_t<Args>...> args;
    };
    const Frame frame{kernel, std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
    const auto invoke = [](const void* f) {
      const Frame& fr = *static_cast<const Frame*>(f);
      std::apply(fr.kernel, fr.args);  // the kernel's by-value parameters are this thread's copies
    };
    const auto pointers = std::apply(
        [](const auto&... a) {
          return std::array<const void*, sizeof...(Args) + 1>{pointer_value(a)..., nullptr};
        },
        frame.args);
    launch(name, {invoke, &frame}, config, {pointers.data(), sizeof...(Args), params});
  }
}
}  // namespace detail

}  // namespace cudasim
