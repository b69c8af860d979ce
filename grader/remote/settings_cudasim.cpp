// The settings a runner on the CPU execution layer applies before each call: this test
// program's thread order and worker threads, as its tests set them (cudasim/include/cudasim/launch.hpp).
#include "cudasim/launch.hpp"
#include "grader/remote/client.hpp"

namespace andrea::remote {

CallSettings settings() {
  const cudasim::ThreadOrder order = cudasim::thread_order();
  return {static_cast<std::uint8_t>(order.order), order.seed, cudasim::worker_threads(),
          static_cast<std::uint8_t>(profiling_calls())};
}

}  // namespace andrea::remote
