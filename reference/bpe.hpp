// Lesson 11 — the byte-level BPE tokenizer's inner loops: encoding chunks by merge rank,
// decoding ids to bytes, and the count of adjacent pairs that training repeats.
//
// The merges are a table (M, 2) of int32: row r = (left, right), and token 256 + r is the
// pair (left, right) merged (merge rank r). Ids 0-255 are the byte values; the last id,
// 256 + M, is the end-of-text token, so vocab_size V = 256 + M + 1 (ANDREA-120M: M = 8,192,
// V = 8,449). The full tokenizer (pre-split, training, the merges file) is tokenizer/bpe.hpp;
// its encode runs encode_chunks, so `andrea-embed tokenize` runs the code of this lesson.
// Sources: Sennrich et al. 2016 (BPE merges); GPT-2 (byte-level start, merge ranks);
// tiktoken and minbpe (encode: merge the lowest-rank pair until none is left).
#pragma once

#include <cstdint>
#include <span>

#include "core/tensor.hpp"

namespace andrea::reference {

/// Encodes text already cut into chunks (GPT-2 / tiktoken): `ids` holds the chunks' bytes as
/// ids 0-255, with a negative id (a separator, as in count_pairs) between two chunks. In each
/// chunk, while some adjacent pair is a merge, the pair of lowest rank r is replaced by 256 + r
/// at each of its places, left to right without overlap ("aaa" with (a, a) -> [256, a]); no
/// merge crosses a separator. The tokens, with each separator kept in its place between them,
/// are written to ids[0 .. k) and k is returned; the rest of `ids` is left as it is.
///   merges (M, 2) int32, ids (n) int32.
/// A pair listed twice in merges (a trained tokenizer never does this) takes its lowest rank.
/// Throws andrea::InputError, writing nothing, when merges does not have 2 columns, a merge
/// refers to a token not yet defined (row r holds an id outside [0, 256 + r)), ids holds more
/// than 2^31 - 1 entries, or an entry of ids is neither a byte nor a separator ("ids[3] = 300
/// is outside [0, 256)").
/// tokenizer::encode (tokenizer/bpe.hpp) calls it once on the distinct chunks of a text.
std::int64_t encode_chunks(TokenIdBatch merges, std::span<std::int32_t> ids);

/// Decodes ids to bytes: bytes[0 .. k) = the bytes of ids[0], then of ids[1], ...; a byte
/// token is its byte, token 256 + r the bytes of its left then of its right token; the
/// end-of-text token (256 + M) gives no byte. Returns k.
///   merges (M, 2) int32, ids (n) int32, bytes (capacity) int32, each written in [0, 256).
/// Throws andrea::InputError, writing nothing, when merges is malformed (as encode_chunks), an
/// id is outside [0, V) ("id 8449 at position 2 is outside [0, 8449)"), or the bytes do
/// not fit ("the ids decode to 12 bytes; bytes holds 10"), found from the tokens' lengths
/// before a byte is written (40 merges that double make one token of 2^40 bytes). Note that
/// tokenizer::decode, for `andrea-embed detokenize`, shows the end-of-text token as
/// "<|endoftext|>" (GPT-2's text for it) where this function writes no byte.
std::int64_t decode_ids(TokenIdBatch merges, TokenIds ids, std::span<std::int32_t> bytes);

/// The adjacent-pair histogram training counts before each merge (minbpe's get_stats):
/// counts[a * vocab_size + b] += the number of positions i with ids[i] = a, ids[i + 1] = b.
/// A negative id is a separator (between two chunks): no pair includes it.
///   ids (n) int32, counts (vocab_size * vocab_size) int32. ACCUMULATES.
/// Throws andrea::InputError, writing nothing, when vocab_size is outside [1, 4096] ("vocab_size
/// 0 is outside [1, 4096]"; V^2 int32 bins: 64 MiB at 4,096), counts.size() is not vocab_size^2
/// ("counts holds 8 entries, expected vocab_size^2 = 9"), or an id is >= vocab_size ("token id
/// 3 at position 2 is outside [0, 3)"). A bin holds int32: at most 2^31 - 1 pairs. The course's
/// trainer (tokenizer/, V up to 8,449) keeps a hash table of the pairs instead, updated where
/// a merge changes them.
void count_pairs(TokenIds ids, std::int64_t vocab_size, std::span<std::int32_t> counts);

}  // namespace andrea::reference
