// <cuda_runtime_api.h> for g++ builds: the runtime API of the CPU execution layer (allocation,
// copies, streams, events, errors, device properties; see cudasim/include/cudasim/api.hpp). It defines
// __CUDA_RUNTIME_API_H__ and CUDART_VERSION as CUDA's header does.
#pragma once

#include "cudasim/cudasim.hpp"
