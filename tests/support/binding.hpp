// A test program's binding: the definitions of the slots its body calls (slots.hpp), each set
// to this backend's function. CMake writes one binding per lesson and backend,
// <program>_binding.cpp in the build folder: this header, then one line per function of the
// lesson's pieces, in lessons/lessons.json's spelling:
//
//   #include "tests/support/binding.hpp"
//   namespace andrea::testing::slots {
//   ANDREA_PIECE(lookup)
//   }
//
// It is compiled with the backend's definitions (ANDREA_BACKEND_CUDA) and against its kernels
// (the layer's or nvcc's andrea::cuda), so one test body serves every backend.
#pragma once

#include "tests/support/slots.hpp"

#if defined(ANDREA_BACKEND_CUDA)
// The kernels. A function of the C++ step alone ("cpu:name") has no slot value here.
#define ANDREA_PIECE(name) \
  const Slot<decltype(::andrea::reference::name)> name{#name, &::andrea::cuda::name};
#define ANDREA_PIECE_CPU_ONLY(name) \
  const Slot<decltype(::andrea::reference::name)> name{#name, nullptr};
#define ANDREA_PIECE_CUDA_ONLY(name) \
  const Slot<decltype(::andrea::cuda::name)> name{#name, &::andrea::cuda::name};
#else
// The C++ pieces. A function of the CUDA step alone ("cuda:name") has no slot value here.
#define ANDREA_PIECE(name) \
  const Slot<decltype(::andrea::reference::name)> name{#name, &::andrea::reference::name};
#define ANDREA_PIECE_CPU_ONLY(name) ANDREA_PIECE(name)
#define ANDREA_PIECE_CUDA_ONLY(name) \
  const Slot<decltype(::andrea::cuda::name)> name{#name, nullptr};
#endif

// Lesson 9's whole step: training::host_runner (reference::sgns_step on host tables) on the C++
// backend, the tables in device memory (cuda/device_tables.hpp) on the CUDA ones.
#if defined(ANDREA_BIND_TRAINING)
#include "training/trainer.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/device_tables.hpp"
namespace andrea::testing {
extern const training::RunnerFactory your_runner;
const training::RunnerFactory your_runner = &training::runner_of<::andrea::cuda::DeviceTables>;
}  // namespace andrea::testing
#else
namespace andrea::testing {
extern const training::RunnerFactory your_runner;
const training::RunnerFactory your_runner = training::host_runner;
}  // namespace andrea::testing
#endif
#endif
