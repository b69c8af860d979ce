// Lesson 10 — the vocabulary-parallel embedding: each of p ranks holds V_p rows of
// the token table (core/vocab_shard.hpp says which), looks up only the ids it
// owns, and a sum over the ranks (MPI_Allreduce) rebuilds x.
//
//   rank r:  part_r[q] = wte[ids[q]]  if rank r owns ids[q],  else a row of zeros
//   x[q]   = (part_0[q] + part_1[q] + ... + part_{p-1}[q]) + wpe[t]
//
// Each element of the sum is one non-zero term plus zeros, so it is exact: x equals
// the one-process combine (lesson 5) bit for bit, whatever the order of the sum.
// Source: Megatron-LM VocabParallelEmbedding (Shoeybi et al. 2019, section 3).
#pragma once

#include "core/tensor.hpp"
#include "core/vocab_shard.hpp"

namespace andrea::reference {

/// The masked lookup of one rank: out[q] = wte_shard[ids[q] - shard.first] when the rank
/// owns ids[q] (shard.owns), else a row of zeros. Adds no position: wpe is added once,
/// after the sum over ranks.
///   wte_shard (V_p, d_model), ids (B, n) int32, out (B * n, d_model); float32.
/// Throws andrea::InputError, writing nothing, when an id is outside [0, V) (the real V,
/// not the padded one: "token id 8449 at position 2 is outside [0, 8449)"), or the shapes
/// disagree. Every rank runs the same check on the same ids, so all ranks throw together.
/// Convention: Megatron-LM VocabParallelEmbedding.forward (input_mask, masked_fill 0).
void vocab_parallel_lookup(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                           FloatView out);

/// The backward pass of one rank: dwte_shard[ids[p] - shard.first] += dout[p] for every flat
/// position p whose id the rank owns, p ascending; other positions add nothing. It is
/// lesson 8's wte_backward on the owned positions, so gathered over the ranks the shards
/// equal the one-process dwte bit for bit (each row sums the same terms in the same order).
///   ids (B, n) int32, dout (B * n, d_model) (the same on every rank), dwte_shard (V_p, d_model).
/// ACCUMULATES, as wte_backward does. Needs no communication: dout is already replicated.
/// Throws andrea::InputError, writing nothing, when an id is outside [0, V), the shapes
/// disagree, or dout holds a non-finite value.
void vocab_parallel_wte_backward(TokenIdBatch ids, ConstFloatView dout, const VocabShard& shard,
                                 FloatView dwte_shard);

}  // namespace andrea::reference
