// CUDA's built-in types and variables (dim3, float4, threadIdx, ...) for code compiled by g++.
#pragma once

#include <vector_types.h>  // float4, uchar4, ..., uint3, dim3

// The scheduler sets these before it resumes a CUDA thread. A fiber never leaves the OS thread
// that runs its block, so a thread_local holds exactly the running CUDA thread's values.
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{};
inline thread_local dim3 gridDim{};
inline constexpr int warpSize = 32;
