// <cuda_runtime.h> for g++ builds: the CPU execution layer (see cuda/sim/cudasim.hpp), which
// defines __CUDA_RUNTIME_H__, CUDART_VERSION and the other guards as CUDA's header does.
#pragma once

#include "cuda/sim/cudasim.hpp"
