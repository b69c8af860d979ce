// The remote backend: every piece, declared with the type of its own header's declaration, as
// an object that sends the call to the piece runner (client.hpp). backend.hpp makes it the
// tests' `backend::` when a test program is built with ANDREA_BACKEND_REMOTE (a grade build):
// andrea::remote::cpu mirrors andrea::reference, andrea::remote::cuda mirrors andrea::cuda. A
// CUDA piece must launch a kernel to do its work (client.hpp, Kernels::required).
#pragma once

#include "reference/backward.hpp"
#include "reference/combine.hpp"
#include "reference/dot.hpp"
#include "reference/lookup.hpp"
#include "reference/norm.hpp"
#include "reference/params.hpp"
#include "reference/position.hpp"
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#include "reference/training.hpp"
#include "reference/vocab_parallel.hpp"
#include "tests/remote/client.hpp"
#include "tests/remote/tables.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/backward.hpp"
#endif

// name: a piece of reference/ (its C++ step) and of cuda/ (its CUDA step), same signature.
#define ANDREA_REMOTE_PIECE(name, kernels) \
  inline constexpr Piece<#name, kernels, decltype(::andrea::reference::name)> name {}

namespace andrea::remote {

#define ANDREA_REMOTE_PIECES(kernels)                 \
  ANDREA_REMOTE_PIECE(lookup, kernels);               \
  ANDREA_REMOTE_PIECE(l2_norm, kernels);              \
  ANDREA_REMOTE_PIECE(row_norms, kernels);            \
  ANDREA_REMOTE_PIECE(dot, kernels);                  \
  ANDREA_REMOTE_PIECE(cosine_similarity, kernels);    \
  ANDREA_REMOTE_PIECE(cosine_matrix, kernels);        \
  ANDREA_REMOTE_PIECE(positions, kernels);            \
  ANDREA_REMOTE_PIECE(combine, kernels);              \
  ANDREA_REMOTE_PIECE(combine_batch, kernels);        \
  ANDREA_REMOTE_PIECE(materialize, kernels);          \
  ANDREA_REMOTE_PIECE(sinusoidal_table, kernels);     \
  ANDREA_REMOTE_PIECE(rope, kernels);                 \
  ANDREA_REMOTE_PIECE(wte_backward, kernels);         \
  ANDREA_REMOTE_PIECE(wpe_backward, kernels);         \
  ANDREA_REMOTE_PIECE(embedding_backward, kernels);   \
  ANDREA_REMOTE_PIECE(zero_rows, kernels);            \
  ANDREA_REMOTE_PIECE(sgd_step_rows, kernels);        \
  ANDREA_REMOTE_PIECE(pair_scores, kernels);          \
  ANDREA_REMOTE_PIECE(score_gradients, kernels);      \
  ANDREA_REMOTE_PIECE(row_gradients, kernels);        \
  ANDREA_REMOTE_PIECE(vocab_parallel_lookup, kernels); \
  ANDREA_REMOTE_PIECE(vocab_parallel_wte_backward, kernels)

namespace cpu {
ANDREA_REMOTE_PIECES(Kernels::not_required);
using DeviceTables = RemoteTables<Kernels::not_required>;  // the step on tables in the runner
}  // namespace cpu

#if defined(ANDREA_BACKEND_CUDA)
namespace cuda {
ANDREA_REMOTE_PIECES(Kernels::required);
inline constexpr Piece<"embedding_backward_atomic", Kernels::required,
                       decltype(::andrea::cuda::embedding_backward_atomic)>
    embedding_backward_atomic{};
using DeviceTables = RemoteTables<Kernels::required>;
}  // namespace cuda
#endif

#undef ANDREA_REMOTE_PIECES
}  // namespace andrea::remote
#undef ANDREA_REMOTE_PIECE
