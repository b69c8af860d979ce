// The same kernel source is built twice: by g++ through the CPU execution layer
// (cudasim/, flavor `cudasim`) and by nvcc for a real GPU (flavor `gpu`). Every
// declaration of andrea::cuda sits in an inline namespace named after the
// flavor, so one program can link both builds (the CLI does) while callers
// simply write andrea::cuda::lookup.
#pragma once

#if !defined(ANDREA_CUDA_FLAVOR)
#if defined(__CUDACC__)
#define ANDREA_CUDA_FLAVOR gpu
#else
#define ANDREA_CUDA_FLAVOR cudasim
#endif
#endif

#define ANDREA_CUDA_BEGIN  \
  namespace andrea::cuda { \
  inline namespace ANDREA_CUDA_FLAVOR {
#define ANDREA_CUDA_END \
  }                     \
  }
