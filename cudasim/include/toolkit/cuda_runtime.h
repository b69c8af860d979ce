// <cuda_runtime.h> for g++ builds: the CPU execution layer (see cudasim/include/cudasim/cudasim.hpp), which
// defines __CUDA_RUNTIME_H__, CUDART_VERSION and the other guards as CUDA's header does.
#pragma once

#include "cudasim/cudasim.hpp"
