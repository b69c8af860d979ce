// <mma.h> for g++ builds: warp matrix operations are not part of the CPU execution layer.
#error \
    "mma.h (nvcuda::wmma, tensor cores) is not supported by the CPU execution layer (cudasim); see cudasim/README.md"
#include "(compilation stopped: see the error above)"  // a missing file ends compilation
