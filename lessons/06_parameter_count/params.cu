// Lesson 06_parameter_count: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in cuda/params.hpp.
// Grade it: python3 lessons/grade.py -L L06
// Lesson 6 — the parameters on the device: allocate wte and wpe, fill them
// with one thread per parameter, and count what was written.
//
//   grid  = ceil(count / 256) blocks (at most 65,535, then a grid-stride loop)
//   block = 256 threads; element i = blockIdx.x * 256 + threadIdx.x (+ stride)
//   value = andrea::init_value(seed, table, i, d_model): Philox4x32-10 of the
//           counter (i, table), so any thread may draw any element, in any order,
//           and the table equals the CPU one.
// Each block counts its writes in shared memory, then adds them to one device
// counter with a single atomicAdd.
#include "cuda/params.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "core/init.hpp"
#include "cuda/block_reduce.cuh"
#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

constexpr int kThreads = 256;

__global__ void init_kernel(float* table, std::int64_t count, std::uint64_t seed, Table which,
                            std::int64_t d_model, unsigned long long* written) {
  // TODO: about 9 lines (the body of init_kernel).
}

// Fills a device table of `count` floats; returns the elements the kernel wrote.
std::int64_t fill(DeviceBuffer<float>& table, std::uint64_t seed, Table which,
                  std::int64_t d_model) {
  DeviceBuffer<unsigned long long> written(1);
  ANDREA_CUDA_CHECK(cudaMemset(written.get(), 0, written.bytes()));
  // TODO: launch the kernel here, about 3 lines.
  ANDREA_CUDA_CHECK_LAUNCH();
  unsigned long long count = 0;
  written.copy_to({&count, 1});
  return static_cast<std::int64_t>(count);
}

}  // namespace

ParameterReport materialize(const Config& config, std::uint64_t seed, FloatView wte,
                            FloatView wpe) {
  // TODO(lesson 06_parameter_count): write the kernel and its launch; then delete the next line.
  throw NotImplemented("06_parameter_count/params.cu", "materialize");
  check::materialize_args(config, wte, wpe);

  DeviceBuffer<float> d_wte(wte.size()), d_wpe(wpe.size());
  ParameterReport report;
  report.token_params = fill(d_wte, seed, Table::token, config.d_model);
  report.position_params = fill(d_wpe, seed, Table::position, config.d_model);
  report.total = report.token_params + report.position_params;
  report.bytes = static_cast<std::int64_t>(d_wte.bytes() + d_wpe.bytes());
  d_wte.copy_to(wte.flat());
  d_wpe.copy_to(wpe.flat());
  return report;
}

ANDREA_CUDA_END
