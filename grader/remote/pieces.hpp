// The remote backend: every piece's public functions (lessons/lessons.json, "functions"), each
// declared with the type of its own header's declaration, as an object that sends the call to
// the piece runner (client.hpp). In a grade build (ANDREA_BACKEND_REMOTE) the test programs'
// bindings point the test bodies' slots at these objects (tests/support/binding.hpp), and the
// hidden tests call them as their `backend::` (tests/support/backend.hpp): andrea::remote::cpu
// mirrors andrea::reference, andrea::remote::cuda mirrors andrea::cuda. A CUDA piece must launch
// a kernel to do its work (client.hpp, Kernels::do_the_work).
#pragma once

#include "andrea_pieces/headers.inc"  // reference/<piece>.hpp and cuda/<piece>.hpp of each piece
#include "grader/remote/client.hpp"
#include "grader/remote/tables.hpp"

namespace andrea::remote {

namespace cpu {
#define ANDREA_PIECE(name) \
  inline constexpr Piece<#name, Kernels::not_required, decltype(::andrea::reference::name)> name{};
#define ANDREA_PIECE_CPU_ONLY(name) ANDREA_PIECE(name)
#define ANDREA_PIECE_CUDA_ONLY(name)
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
#define ANDREA_PIECE_CPU_ONLY(name)
#define ANDREA_PIECE_CUDA_ONLY(name) ANDREA_PIECE(name)
#include "andrea_pieces/functions.inc"
#undef ANDREA_PIECE
#undef ANDREA_PIECE_CPU_ONLY
#undef ANDREA_PIECE_CUDA_ONLY
using DeviceTables = RemoteTables<Kernels::required>;
}  // namespace cuda
#endif

}  // namespace andrea::remote
