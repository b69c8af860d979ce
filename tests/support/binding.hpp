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
// It defines the slots (and lesson 9's your_runner): include it from that generated file alone.
// It is compiled with the backend's definitions (ANDREA_BACKEND_CUDA, and ANDREA_BACKEND_REMOTE
// in a grade build) and against its kernels (the layer's or nvcc's andrea::cuda), so one test
// body serves every backend.
#pragma once

#include "tests/support/slots.hpp"

// ANDREA_TARGET(name): this backend's function. In a grade build, the remote backend's object
// (grader/remote/pieces.hpp), which sends the call to the student's runner, behind a plain
// function (Forward) as a slot holds one.
#if defined(ANDREA_BACKEND_REMOTE)
#include "grader/remote/pieces.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#define ANDREA_REMOTE_BACKEND ::andrea::remote::cuda
#else
#define ANDREA_REMOTE_BACKEND ::andrea::remote::cpu
#endif
namespace andrea::testing {
template <auto& piece, typename F>
struct Forward;
template <auto& piece, typename R, typename... A>
struct Forward<piece, R(A...)> {
  static R call(A... args) { return piece(std::forward<A>(args)...); }
};
}  // namespace andrea::testing
#define ANDREA_TARGET(name, type) &Forward<ANDREA_REMOTE_BACKEND::name, type>::call
#elif defined(ANDREA_BACKEND_CUDA)
#define ANDREA_TARGET(name, type) &::andrea::cuda::name
#else
#define ANDREA_TARGET(name, type) &::andrea::reference::name
#endif

// One slot: its type is the function's declared type (the C++ header's, or the CUDA header's for
// a function of the CUDA step alone); null where this backend has no such step.
#define ANDREA_SLOT(name, type, target) const Slot<type> name{#name, target};
#define ANDREA_CPU_TYPE(name) decltype(::andrea::reference::name)
#define ANDREA_CUDA_TYPE(name) decltype(::andrea::cuda::name)
#define ANDREA_PIECE(name) \
  ANDREA_SLOT(name, ANDREA_CPU_TYPE(name), ANDREA_TARGET(name, ANDREA_CPU_TYPE(name)))
#if defined(ANDREA_BACKEND_CUDA)
#define ANDREA_PIECE_CPU_ONLY(name) ANDREA_SLOT(name, ANDREA_CPU_TYPE(name), nullptr)
#define ANDREA_PIECE_CUDA_ONLY(name) \
  ANDREA_SLOT(name, ANDREA_CUDA_TYPE(name), ANDREA_TARGET(name, ANDREA_CUDA_TYPE(name)))
#else
#define ANDREA_PIECE_CPU_ONLY(name) ANDREA_PIECE(name)
#define ANDREA_PIECE_CUDA_ONLY(name) ANDREA_SLOT(name, ANDREA_CUDA_TYPE(name), nullptr)
#endif

// Lesson 9's whole step: training::host_runner (reference::sgns_step on host tables) on the C++
// backend, the tables in device memory (cuda/device_tables.hpp) on the CUDA ones.
#if defined(ANDREA_BIND_TRAINING)
#include "training/trainer.hpp"
namespace andrea::testing {
extern const training::RunnerFactory your_runner;
}  // namespace andrea::testing
#if defined(ANDREA_BACKEND_REMOTE)  // a grade build: the tables live in the runner, on both backends
const andrea::training::RunnerFactory andrea::testing::your_runner =
    &andrea::training::runner_of<ANDREA_REMOTE_BACKEND::DeviceTables>;
#elif defined(ANDREA_BACKEND_CUDA)
#include "cuda/device_tables.hpp"
const andrea::training::RunnerFactory andrea::testing::your_runner =
    &andrea::training::runner_of<::andrea::cuda::DeviceTables>;
#else
const andrea::training::RunnerFactory andrea::testing::your_runner = andrea::training::host_runner;
#endif
#endif
