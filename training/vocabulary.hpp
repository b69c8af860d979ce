// The vocabulary: one row of the tables per word. These are word ids for this lesson,
// not ANDREA's byte-level BPE token ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "training/corpus.hpp"

namespace andrea::training {

/// Row 0 is "<unk>", the unknown word: every word seen fewer than min_count times maps to
/// it, and it is trained like any other word. Rows 1..V-1 are the words seen at least
/// min_count times, most frequent first, ties in alphabetical order.
struct Vocabulary {
  static constexpr std::int32_t unknown = 0;
  std::vector<std::string> words;    ///< words[id]
  std::vector<std::int64_t> counts;  ///< counts[id] in the corpus (<unk>: the rare words' total)
  std::unordered_map<std::string, std::int32_t> ids;

  std::int64_t size() const { return static_cast<std::int64_t>(words.size()); }
  /// The id of `word`, or std::nullopt when it is not a row (it would be <unk>).
  std::optional<std::int32_t> find(std::string_view word) const;
  /// The id of `word`; throws andrea::InputError naming it when it is not in the vocabulary.
  std::int32_t at(std::string_view word) const;
};

/// The vocabulary of a corpus under the rule above. Throws andrea::InputError when
/// min_count < 1 or fewer than 2 words would be rows (<unk> and at least one word).
Vocabulary build_vocabulary(const Corpus& corpus, std::int64_t min_count);

/// The corpus as ids (unknown words -> 0), same length and order as corpus.words.
std::vector<std::int32_t> encode(const Corpus& corpus, const Vocabulary& vocab);

/// The text of a vocabulary file: one "word count" line per row, row 0 first (a word
/// is any run of bytes without whitespace; count >= 0). `source` names it in messages.
/// Throws andrea::InputError naming the line when a line is malformed or a word
/// repeated, or when fewer than 2 rows are given.
Vocabulary parse_vocabulary(std::string_view text, std::string_view source);
/// parse_vocabulary of a file; also throws andrea::InputError when it cannot be read.
Vocabulary read_vocabulary(const std::string& path);
/// The text parse_vocabulary reads back (the caller writes it, apps/output_files.hpp).
std::string vocabulary_text(const Vocabulary& vocab);

}  // namespace andrea::training
