// Is there a device to run the kernels on?
//
// device_presence() decides whether the GPU tests run, skip or fail (tests/support/main.cpp,
// the programs' --backend gpu, bench/gpu_bench): present (run), none (skip: exit status 77) or
// broken (fail, with the error's name and text). The rule is the CPU execution layer's, for every
// program built twice (cudasim/include/cudasim/gpu_presence.hpp).
#pragma once

#include <string>

#include "cuda/flavor.hpp"
#include "cudasim/gpu_presence.hpp"

ANDREA_CUDA_BEGIN

using DevicePresence = ::cudasim::gpu::Presence;

/// Asks the runtime (cudaGetDeviceCount, and cudaDriverGetVersion after an error) and decides.
DevicePresence device_presence();

/// True when a device is usable. Otherwise false, with device_presence()'s reason in *reason.
/// The CPU execution layer always has one device.
bool device_available(std::string* reason);

/// A one-line description of the device ("NVIDIA H200, sm_90, 132 SMs" or the
/// CPU execution layer's own line).
std::string device_name();


ANDREA_CUDA_END
