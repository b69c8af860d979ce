// The remote backend: every piece's public functions (lessons/lessons.json, "functions"), each
// declared with the type of its own header's declaration, as an object that sends the call to
// the piece runner (client.hpp). backend.hpp makes it the tests' `backend::` when a test program
// is built with ANDREA_BACKEND_REMOTE (a grade build): andrea::remote::cpu mirrors
// andrea::reference, andrea::remote::cuda mirrors andrea::cuda. A CUDA piece must launch a
// kernel to do its work (client.hpp, Kernels::do_the_work).
#pragma once

#include <stdexcept>
#include <string>

#include "andrea_pieces/headers.inc"  // reference/<piece>.hpp and cuda/<piece>.hpp of each piece
#include "tests/remote/client.hpp"
#include "tests/remote/tables.hpp"

namespace andrea::remote {

/// A function of the other backend's step alone (sgd_step_rows is C++ only): the test bodies,
/// shared by both backends, name it; the tests that call it run on the other backend only
/// (ANDREA_ONLY_ON), and a call throws.
template <typename F>
struct Absent;

template <typename R, typename... A>
struct Absent<R(A...)> {
  const char* name;
  [[noreturn]] R operator()(A...) const {
    throw std::logic_error(std::string(name) + " has no step on this backend");
  }
};

namespace cpu {
#define ANDREA_PIECE(name) \
  inline constexpr Piece<#name, Kernels::not_required, decltype(::andrea::reference::name)> name{};
#define ANDREA_PIECE_CPU_ONLY(name) ANDREA_PIECE(name)
#define ANDREA_PIECE_CUDA_ONLY(name) \
  inline constexpr Absent<decltype(::andrea::cuda::name)> name{#name};
#include "andrea_pieces/functions.inc"  // ANDREA_PIECE(lookup) ...
#undef ANDREA_PIECE
#undef ANDREA_PIECE_CPU_ONLY
#undef ANDREA_PIECE_CUDA_ONLY
using DeviceTables = RemoteTables<Kernels::not_required>;  // the step on tables in the runner
}  // namespace cpu

#if defined(ANDREA_BACKEND_CUDA)
namespace cuda {
#define ANDREA_PIECE(name) \
  inline constexpr Piece<#name, Kernels::do_the_work, decltype(::andrea::cuda::name)> name{};
#define ANDREA_PIECE_CPU_ONLY(name) \
  inline constexpr Absent<decltype(::andrea::reference::name)> name{#name};
#define ANDREA_PIECE_CUDA_ONLY(name) ANDREA_PIECE(name)
#include "andrea_pieces/functions.inc"
#undef ANDREA_PIECE
#undef ANDREA_PIECE_CPU_ONLY
#undef ANDREA_PIECE_CUDA_ONLY
using DeviceTables = RemoteTables<Kernels::required>;
}  // namespace cuda
#endif

}  // namespace andrea::remote
