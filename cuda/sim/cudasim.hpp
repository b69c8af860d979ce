// cudasim: CUDA kernel source run on the CPU, compiled by a plain C++ compiler.
//
// A launch shares its blocks out to a few OS worker threads; each worker runs one block at a
// time. The threads of a block are fibers (Boost.Context) on that worker: each runs until it
// reaches a barrier (__syncthreads(), a warp operation) or returns, then the next one runs. A
// barrier opens when every thread it waits for has arrived. One that can never open is reported
// as a launch failure naming the kernel, the block and where each thread is: never a hang.
//
// A fiber never leaves its worker, so `__shared__` can simply be `static thread_local`.
//
// Kernel files include "cuda/runtime.hpp", which picks CUDA (nvcc) or this header (g++).
// Supported: thread/block indices and sizes, fixed-size __shared__ arrays, block-uniform
// __syncthreads(), full-mask warp shuffles with blockDim a multiple of 32, atomicAdd, maths.
// Not supported: extern __shared__, textures, cooperative groups, partial masks, inline PTX.
// Memory: cudaMalloc'ed arrays lie between guard pages, so a kernel's out-of-bounds access
// fails the launch with a memcheck-style report (cuda/sim/memory.hpp).
#pragma once

#include <math.h>  // C++'s <math.h> also puts sqrt(float) & co. in the global namespace, as CUDA

#include "cuda/sim/api.hpp"
#include "cuda/sim/builtins.hpp"
#include "cuda/sim/device.hpp"
#include "cuda/sim/launch.hpp"

// CUDA's declaration keywords: every function is an ordinary C++ function here.
#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
// One copy per worker OS thread, and a worker runs one block at a time: per-block memory.
#define __shared__ static thread_local
