// The device the kernels run on, in one line (bench/gpu_bench, andrea-embed's report). Whether
// there is one at all, and whether the GPU tests run, skip or fail, is decided by the CPU
// execution layer's rule for every program built twice, cudasim::gpu::presence()
// (cudasim/include/cudasim/gpu_presence.hpp), which the programs ask themselves.
#pragma once

#include <string>

#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// A one-line description of the device ("NVIDIA H200, sm_90, 132 SMs" or the
/// CPU execution layer's own line).
std::string device_name();

ANDREA_CUDA_END
