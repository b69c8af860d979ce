// Lesson 9's corpus as the course's model reads it: BPE token ids (tokenizer/), not words.
// `andrea-embed train --tokens bpe` trains ANDREA-120M's own token table on it: one row per
// token id of the tokenizer, V = 8,449, whatever the corpus holds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tokenizer/bpe.hpp"
#include "training/vocabulary.hpp"

namespace andrea::training {

/// Token ids in sentences: a training window never crosses a sentence boundary.
struct TokenCorpus {
  std::vector<std::int32_t> ids;
  std::vector<std::int64_t> sentence_starts;  ///< each sentence's first index, then ids.size()
};

/// `text` encoded with `tok` (tokenizer::encode, the whole text at once), one sentence per
/// line: a token holding a '\n' byte ends a sentence and is not kept (the pre-split rule puts
/// '\n' in chunks of white space only), and a sentence with no token is not kept. Throws
/// andrea::InputError when no sentence is left.
TokenCorpus encode_lines(const tokenizer::Tokenizer& tok, std::string_view text);

/// One row per token id 0 .. V-1 of `tok`, in id order (the embedding table's rows): each
/// named as the merges file writes its bytes (tokenizer::escaped: " cat" is \x20cat), the
/// end-of-text token "<|endoftext|>"; counts[id] is how often id occurs in `ids` (0 for a
/// token the corpus never uses: it is never a negative, and its row stays as it started).
Vocabulary token_vocabulary(const tokenizer::Tokenizer& tok, std::span<const std::int32_t> ids);

/// The row of `word` as BPE reads it inside a sentence, after a space: the token " word";
/// std::nullopt when " word" is not a single token of `vocab` (a token_vocabulary).
std::optional<std::int32_t> word_token(const Vocabulary& vocab, std::string_view word);

}  // namespace andrea::training
