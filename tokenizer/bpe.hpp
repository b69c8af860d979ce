// Byte-level BPE (byte-pair encoding): the tokenizer that turns text into the token ids the
// embedding layer reads. Sennrich et al. 2016 learn merges of frequent adjacent pairs; GPT-2
// (Radford et al. 2019) starts from the 256 byte values, so every byte string has an encoding
// and decode(encode(b)) == b for any bytes, valid UTF-8 or not; tiktoken and minbpe encode by
// merge rank. Our vocabulary: ids 0-255 are the bytes, id 256 + r is the token made by merge
// r (its merge rank), and the last id, 256 + merges, is the end-of-text token. ANDREA-120M:
// 256 + 8,192 + 1 = 8,449 = vocab_size V.
//
// The rules an independent implementation needs to reproduce the merges exactly
// (golden/tokenizer.py is one):
//
//  * Pre-split (GPT-2-like chunks, no merge crosses a chunk): bytes fall in four classes,
//    letter (a-z, A-Z and every byte >= 0x80, so a UTF-8 character stays whole), digit (0-9),
//    space (' ', \t, \n, \v, \f, \r) and other (punctuation, control bytes). A chunk is
//    either one ' ' followed by a maximal run of one non-space class (" cat", " 42", " ,;"),
//    or a maximal run of one class. A run of spaces followed by a non-space gives its last
//    ' ' to the next chunk when that byte is ' ' and the run is longer than one ("a  b" ->
//    "a", " ", " b").
//  * Pair count: the number of adjacent positions holding (left, right), over every chunk
//    (overlaps count: "aaa" holds (a, a) twice).
//  * Tie rule: each merge takes the pair of highest count; among equal counts the smallest
//    (left id, right id), compared left first. Pairs of count 0 are never merged.
//  * Applying a merge to a chunk: left to right, each occurrence not overlapping the one
//    just merged ("aaa" with (a, a) -> [aa, a]).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/input_file.hpp"

namespace andrea::tokenizer {

/// The ids 0-255 are the byte values.
inline constexpr std::int32_t byte_tokens = 256;
/// The most merges a tokenizer holds (ids stay far inside int32).
inline constexpr std::int64_t max_merges = 1'000'000;

/// Merge r: the adjacent pair (left, right) becomes token 256 + r.
struct Merge {
  std::int32_t left = 0;
  std::int32_t right = 0;
  bool operator==(const Merge&) const = default;
};

/// The merges, in rank order; V = 256 + merges.size() + 1 (the end-of-text token).
struct Tokenizer {
  std::vector<Merge> merges;
  std::int32_t vocab_size() const {
    return byte_tokens + static_cast<std::int32_t>(merges.size()) + 1;
  }
  std::int32_t end_of_text() const { return vocab_size() - 1; }
};

/// The chunks of `text` (the pre-split rule above), views into `text`; their concatenation
/// is `text`.
std::vector<std::string_view> pre_split(std::string_view text);

/// Learns `merges` merges from `corpus` (any bytes) with the rules above. Incremental, as
/// SentencePiece's BPE trainer (bpe_model_trainer.cc) and Sennrich et al.'s reference
/// implementation (subword-nmt learn_bpe.py: pair statistics updated around each merge, with
/// an index of where each pair occurs): each distinct chunk is held once, weighted by how often
/// it occurs, as a linked list of tokens; each pair keeps its count and the positions where it
/// occurs, and a merge visits only those positions, updating the counts of the pairs beside
/// each occurrence; a max-heap of (count, pair) with lazy deletion picks the next merge. Time
/// O(N log N) and memory O(N) for N bytes of distinct chunks (a merge removes one position per
/// occurrence, so all the merges together visit fewer than N occurrences): 8,192 merges take
/// about 2.5 s (1 s of CPU) on the 11 MB of WordNet glosses, and 0.5 s and 21 MB of memory on
/// one 256 KiB chunk of letters without a space (bench/README.md).
/// Throws andrea::InputError when `merges` is outside [0, max_merges] or when the corpus runs
/// out of pairs first ("after 40 merges no adjacent pair is left in the corpus; 100 merges
/// asked ...").
Tokenizer train(std::string_view corpus, std::int64_t merges);

/// The token ids of `bytes` (any bytes): per chunk, starting from its bytes, the adjacent
/// pair of lowest merge rank is merged until no pair has a rank (GPT-2 / tiktoken). Never
/// gives the end-of-text token. The merging is lesson 11's reference::encode_chunks
/// (reference/bpe.hpp), called once on the text's distinct chunks: in a student's build it
/// is the student's code.
std::vector<std::int32_t> encode(const Tokenizer& tok, std::string_view bytes);

/// The bytes of one token: a byte, or the bytes of its merge's two tokens; the end-of-text
/// token is the text "<|endoftext|>" (GPT-2's). Throws andrea::InputError when `id` is
/// outside [0, V).
std::string token_bytes(const Tokenizer& tok, std::int32_t id);

/// `bytes` as the merges file's comments write a token: '!'..'~' as they are (but '\'), every
/// other byte as \xNN (" cat" is \x20cat). A name with no white space, one per byte string.
std::string escaped(std::string_view bytes);

/// The length in bytes of every token, ids 0 .. V-1, without building one: merges may
/// double a length each time (40 merges: a token of 2^40 bytes), so a length past INT64_MAX
/// is counted as INT64_MAX.
std::vector<std::int64_t> token_lengths(const Tokenizer& tok);

/// The most bytes decode() builds: what a file read whole may hold (256 MiB), so that any
/// text `tokenize --file` reads decodes back.
inline constexpr auto max_decoded_bytes = static_cast<std::int64_t>(max_text_file_bytes);

/// The concatenated bytes of `ids`, counted (token_lengths) before they are built. Throws
/// andrea::InputError naming the first id outside [0, V), its position and the bound ("id
/// 8449 at position 3 is outside [0, 8449)"), or, when the bytes would pass max_bytes, the
/// token that alone passes it ("token 295 at position 0 decodes to 1,099,511,627,776 bytes,
/// more than the 268,435,456 bytes ...") or the count of ids that together do.
std::string decode(const Tokenizer& tok, std::span<const std::int32_t> ids,
                   std::int64_t max_bytes = max_decoded_bytes);

/// The merges file (docs/cli.md, "The tokenizer"):
///   line 1:   "andrea-bpe vocab_size 8449 merges 8192"
///   line 2+r: "<256 + r> <left> <right>" then, after " #", the new token's bytes with the
///             bytes outside '!'..'~' and '\\' written \xNN (a comment, ignored when read).
std::string merges_text(const Tokenizer& tok);

/// Reads a merges file's text strictly. Throws andrea::InputError naming `source`, the line,
/// the value and the bound when the header is malformed, V is not 256 + merges + 1, a line
/// is malformed, the new ids are out of order ("line 17: token 300, expected 271"), a token
/// refers to an id not yet defined ("line 17: token 8450 is outside [0, 271)"), a pair is
/// merged twice, or the file holds fewer or more merge lines than the header says.
Tokenizer parse_merges(std::string_view text, std::string_view source);

/// parse_merges() of a file; throws andrea::InputError when it cannot be read.
Tokenizer read_merges(const std::string& path);

/// A training corpus read from the regular file `path` in full (core/input_file.hpp: a
/// folder, a FIFO or a device such as /dev/zero is refused before a byte is read; at most
/// max_text_file_bytes, 256 MiB). Throws andrea::InputError when it cannot be read, is too
/// large, is empty, or holds a NUL byte (binary, not text: the offset is named).
std::string read_corpus_bytes(const std::string& path);

}  // namespace andrea::tokenizer
