// cuda_bf16.h for g++ builds: half-precision types are not part of the CPU execution layer.
#error \
    "cuda_bf16.h (__half, __nv_bfloat16): half-precision types are not supported by the CPU execution layer (cudasim); see cudasim/README.md"
#include "(compilation stopped: see the error above)"  // a missing file ends compilation
