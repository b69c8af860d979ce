// The slots through which a shared test body calls its backend (backend.hpp): one per public
// function of every piece (lessons/lessons.json, "functions"), declared here with the type of
// the function's own declaration, and defined by each program's binding (binding.hpp) with
// its backend's function. A body compiled once thereby calls andrea::reference::lookup in the
// cpu program, the layer's andrea::cuda::lookup in the cudasim one, nvcc's in the gpu one.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "andrea_pieces/headers.inc"  // reference/<piece>.hpp and cuda/<piece>.hpp of each piece

namespace andrea::testing {

/// A piece's function as the test bodies call it: `name(args...)` calls the function the
/// program's binding set. Null where the backend has no such step (sgd_step_rows is C++ only,
/// embedding_backward_atomic CUDA only): a call then throws std::logic_error, and the tests
/// that make it are registered for the other backend only (ANDREA_ONLY_ON).
template <typename F>
struct Slot;

template <typename R, typename... A>
struct Slot<R(A...)> {
  const char* name;
  R (*function)(A...);

  R operator()(A... args) const {
    if (function == nullptr) {
      throw std::logic_error(std::string(name) + " has no step on this backend");
    }
    return function(std::forward<A>(args)...);
  }
};

}  // namespace andrea::testing

namespace andrea::testing::slots {
#define ANDREA_PIECE(name) extern const Slot<decltype(::andrea::reference::name)> name;
#define ANDREA_PIECE_CPU_ONLY(name) ANDREA_PIECE(name)
#define ANDREA_PIECE_CUDA_ONLY(name) extern const Slot<decltype(::andrea::cuda::name)> name;
#include "andrea_pieces/functions.inc"  // ANDREA_PIECE(lookup) ...
#undef ANDREA_PIECE
#undef ANDREA_PIECE_CPU_ONLY
#undef ANDREA_PIECE_CUDA_ONLY
}  // namespace andrea::testing::slots
