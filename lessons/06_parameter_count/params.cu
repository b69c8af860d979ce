// Lesson 06_parameter_count — exercise. Generated from cuda/params.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/params.hpp. Run this lesson's tests: ctest --preset grade -L L06
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

#include "cuda/block_reduce.cuh"
#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"
#include "reference/init.hpp"

ANDREA_CUDA_BEGIN

namespace {

// Your helper functions and kernels go here.

}  // namespace

ParameterReport materialize(const Config& config, std::uint64_t seed, FloatView wte, FloatView wpe) {
  // TODO(lesson 06_parameter_count): write materialize() here.
  throw NotImplemented("06_parameter_count/params.cu", "materialize");
}

ANDREA_CUDA_END
