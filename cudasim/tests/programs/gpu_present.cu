// Run before each program's nvcc build (gpu-programs/*): exit status 0 if a CUDA device is
// present; 77 (ctest: skipped) if there is none; 1, with the error's name and text, if a device
// or driver is there and fails (cudasim/include/cudasim/gpu_presence.hpp).
#include "cudasim/gpu_presence.hpp"

int main() { return cudasim::gpu::exit_status_before_tests(); }
