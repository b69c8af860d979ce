// <cuda_profiler_api.h> for g++ builds. cudaProfilerStart/Stop mark the part of a program a
// profiler records; the CPU execution layer has no profiler to tell, so both succeed and do
// nothing.
#pragma once
#if !defined(__CUDA_PROFILER_API_H__)
#define __CUDA_PROFILER_API_H__

#include "cudasim/cudasim.hpp"

inline cudaError_t cudaProfilerStart() { return cudaSuccess; }
inline cudaError_t cudaProfilerStop() { return cudaSuccess; }

#endif  // __CUDA_PROFILER_API_H__
