#include "training/token_corpus.hpp"

#include <fmt/format.h>

#include <numeric>
#include <string>

#include "core/errors.hpp"

namespace andrea::training {

namespace {

// The bytes of every token, ids 0 .. V-1, once the merges file's tokens are known to fit:
// merges can double a token's length each time (tokenizer::token_lengths).
std::vector<std::string> every_token(const tokenizer::Tokenizer& tok) {
  const std::vector<std::int64_t> lengths = tokenizer::token_lengths(tok);
  std::int64_t total = 0;
  for (const std::int64_t n : lengths) {
    total = n > tokenizer::max_decoded_bytes - total ? tokenizer::max_decoded_bytes + 1 : total + n;
  }
  if (total > tokenizer::max_decoded_bytes) {
    throw InputError(fmt::format("the tokenizer's {} tokens hold more than {} bytes in all: its "
                                 "merges build tokens too long to name",
                                 tok.vocab_size(), tokenizer::max_decoded_bytes));
  }
  std::vector<std::string> tokens;
  for (std::int32_t id = 0; id < tok.vocab_size(); ++id) tokens.push_back(tokenizer::token_bytes(tok, id));
  return tokens;
}

}  // namespace

TokenCorpus encode_lines(const tokenizer::Tokenizer& tok, std::string_view text) {
  std::vector<bool> ends_line;
  for (const std::string& bytes : every_token(tok)) {
    ends_line.push_back(bytes.find('\n') != std::string::npos);
  }
  TokenCorpus corpus;
  corpus.sentence_starts.push_back(0);
  for (const std::int32_t id : tokenizer::encode(tok, text)) {
    if (!ends_line[static_cast<std::size_t>(id)]) {
      corpus.ids.push_back(id);
    } else if (static_cast<std::int64_t>(corpus.ids.size()) > corpus.sentence_starts.back()) {
      corpus.sentence_starts.push_back(static_cast<std::int64_t>(corpus.ids.size()));
    }
  }
  if (static_cast<std::int64_t>(corpus.ids.size()) > corpus.sentence_starts.back()) {
    corpus.sentence_starts.push_back(static_cast<std::int64_t>(corpus.ids.size()));
  }
  if (corpus.ids.empty()) {
    throw InputError("the corpus holds no token outside its line ends: nothing to train on");
  }
  return corpus;
}

Vocabulary token_vocabulary(const tokenizer::Tokenizer& tok, std::span<const std::int32_t> ids) {
  Vocabulary vocab;
  const std::vector<std::string> tokens = every_token(tok);
  for (std::int32_t id = 0; id < tok.vocab_size(); ++id) {
    vocab.words.push_back(id == tok.end_of_text() ? "<|endoftext|>"
                                                  : tokenizer::escaped(tokens[static_cast<std::size_t>(id)]));
    if (!vocab.ids.emplace(vocab.words.back(), id).second) {  // "<|endoftext|>" twice
      throw InputError(fmt::format("tokens {} and {} are both named '{}'", vocab.ids.at(vocab.words.back()),
                                   id, vocab.words.back()));
    }
  }
  vocab.counts.assign(tokens.size(), 0);
  for (const std::int32_t id : ids) {
    if (id < 0 || id >= tok.vocab_size()) {
      throw InputError(fmt::format("token id {} is outside [0, {})", id, tok.vocab_size()));
    }
    ++vocab.counts[static_cast<std::size_t>(id)];
  }
  return vocab;
}

std::optional<std::int32_t> word_token(const Vocabulary& vocab, std::string_view word) {
  return vocab.find(tokenizer::escaped(" " + std::string(word)));
}

}  // namespace andrea::training
