// <cuda_runtime.h> for g++ builds: the CPU execution layer (see cuda/sim/cudasim.hpp).
#pragma once

#include "cuda/sim/cudasim.hpp"
