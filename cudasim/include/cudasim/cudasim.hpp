// cudasim: CUDA kernel source run on the CPU, compiled by a plain C++ compiler.
//
// A launch shares its blocks out to a few OS worker threads; each worker runs one block at a
// time. The threads of a block are fibers (Boost.Context) on that worker: each runs until it
// reaches a barrier (__syncthreads(), a warp operation) or returns, then the next one runs. A
// barrier opens when every thread it waits for has arrived. One that can never open is reported
// as a launch failure naming the kernel, the block and where each thread is: never a hang.
//
// A .cu file reaches g++ through cudasim/cu2cpp.py, which rewrites what C++ cannot say:
// kernel<<<grid, block, shared_bytes, stream>>>(args) becomes a call of
// cudasim::detail::launch_chevron, `extern __shared__ T s[]` points at the block's dynamic
// shared memory, a function-scope `__shared__` is filled with 0xff bytes at block start, and
// assert() reports kernel, block and thread. `#line` markers keep messages on the .cu lines.
// A fiber never leaves its worker, so `__shared__` can be `static thread_local`.
//
// A kernel file that includes <cuda_runtime.h> gets CUDA under nvcc and this layer under g++.
// Supported (details and reasons in cudasim/README.md): 1-3D grids and blocks, static and
// dynamic shared memory, __syncthreads(_count/_and/_or), warp shuffles and votes of any mask
// (partial last warps included), atomics, bit intrinsics, device maths, vector types, streams
// and events (synchronous), managed/pinned memory, __constant__/__device__ variables,
// cooperative groups within a block. Refused at compile time with a message: textures and
// surfaces, inline PTX, grid-wide sync, half precision, wmma, graphs.
// Memory: cudaMalloc'ed arrays lie between guard pages, so a kernel's out-of-bounds access
// fails the launch with a memcheck-style report (cudasim/memory.hpp).
#pragma once

#include <math.h>  // C++'s <math.h> also puts sqrt(float) & co. in the global namespace, as CUDA

#include "cudasim/api.hpp"
#include "cudasim/builtins.hpp"
#include "cudasim/device.hpp"
#include "cudasim/launch.hpp"

// What CUDA's <cuda_runtime.h> defines, and helper headers test (CUDART_VERSION and
// __CUDA_RUNTIME_API_H__: api.hpp; __DRIVER_TYPES_H__: include/toolkit/driver_types.h).
#define __CUDA_RUNTIME_H__
// Defined where this layer is the CUDA runtime: code that uses the layer's extras (its
// cudasim::last_error_detail(), its tools) tests it.
#define CUDASIM_RUNTIME 1

// CUDA's declaration keywords: every function is an ordinary C++ function here.
#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __align__(n) alignas(n)
#define __launch_bounds__(...)
// One copy per worker OS thread, and a worker runs one block at a time: per-block memory.
#define __shared__ static thread_local
