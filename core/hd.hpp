// Marks a function callable from host and device code.
// Under nvcc it expands to __host__ __device__; under a plain C++ compiler (the
// reference build and the CPU execution layer) it expands to nothing.
#pragma once

#if defined(__CUDACC__)
#define ANDREA_HD __host__ __device__
#else
#define ANDREA_HD
#endif
