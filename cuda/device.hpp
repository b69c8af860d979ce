// Is there a device to run the kernels on?
#pragma once

#include <string>

#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// True when a device is usable. Otherwise false, with the reason in *reason:
/// the error cudaGetDeviceCount returned (e.g. cudaErrorNoDevice, or
/// cudaErrorInsufficientDriver when no driver is installed) — the error code,
/// not only the count, tells why. The CPU execution layer always has one device.
bool device_available(std::string* reason);

/// A one-line description of the device ("NVIDIA H200, sm_90, 132 SMs" or the
/// CPU execution layer's own line).
std::string device_name();

ANDREA_CUDA_END
