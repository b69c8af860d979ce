// The training text: sentences of words. A word is a maximal run of the ASCII letters
// a-z and A-Z, lower-cased ("Fat_Tuesday's" -> fat, tuesday, s); every other byte
// (digits, punctuation, accents, '_', '-') separates words.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace andrea::training {

/// Sentences of words; a training window never crosses a sentence boundary.
struct Corpus {
  std::vector<std::string> words;  ///< every word, in order
  std::vector<std::int64_t>
      sentence_starts;  ///< index of each sentence's first word, then words.size()
  std::string source;   ///< where it was read from, for the report
  std::int64_t sentences() const { return static_cast<std::int64_t>(sentence_starts.size()) - 1; }
};

/// Where Debian's wordnet-base installs the WordNet 3.0 database.
inline constexpr std::string_view default_wordnet_dir = "/usr/share/wordnet";

/// Appends the words of `text` (the rule above) to `out`.
void append_words(std::string_view text, std::vector<std::string>& out);

/// WordNet 3.0 (Princeton; licence in /usr/share/doc/wordnet-base/copyright): one sentence
/// per synset of data.noun, data.verb, data.adj and data.adv, in that order: the synset's
/// lemmas (without the adjective markers "(a)", "(p)", "(ip)") followed by its gloss, which
/// holds the definition and the quoted example sentences. The licence header lines (they
/// start with two spaces) are skipped. About 1.77 million words in 117,659 sentences.
/// Throws andrea::InputError when a data file is missing (saying how to install it) or
/// the files hold no word.
Corpus read_wordnet(const std::string& dir);

/// The same synsets as read_wordnet, as text for the tokenizer (tokenizer/): one line per synset,
/// "lemma, other lemma: gloss" ('_' in a lemma read as a space, the adjective markers
/// dropped), bytes as the files hold them (case, digits, punctuation kept). About 14 MB.
/// Throws andrea::InputError when a data file is missing (saying how to install it).
std::string read_wordnet_text(const std::string& dir);

/// A plain text file, one sentence per line. Throws andrea::InputError when the file
/// cannot be read or holds no word.
Corpus read_text(const std::string& path);

/// read_wordnet for a folder (or a missing path ending in '/', or the default folder:
/// the error says how to install WordNet), read_text for a file.
Corpus read_corpus(const std::string& path);

}  // namespace andrea::training
