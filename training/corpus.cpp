#include "training/corpus.hpp"

#include <fmt/format.h>
#include <charconv>
#include <filesystem>
#include <algorithm>
#include <sstream>

#include "core/errors.hpp"
#include "core/input_file.hpp"

namespace andrea::training {

namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

void end_sentence(Corpus& corpus) {
  if (corpus.sentence_starts.back() != static_cast<std::int64_t>(corpus.words.size())) {
    corpus.sentence_starts.push_back(static_cast<std::int64_t>(corpus.words.size()));
  }
}

void require_words(const Corpus& corpus) {
  if (corpus.words.empty()) {
    throw InputError(
        fmt::format("the corpus {} holds no word (a word is a run of letters a-z)", corpus.source));
  }
}

// One line of a WordNet data file: "offset lex_filenum ss_type w_cnt word lex_id ... | gloss".
// Calls f(lemmas, gloss), the lemmas without their "(a)"; nothing for a line without a gloss.
template <class F>
void read_synset(const std::string& line, F&& f) {
  const std::size_t bar = line.find(" | ");
  if (bar == std::string::npos) return;
  std::vector<std::string> fields;
  std::size_t at = 0;
  while (at < bar) {
    const std::size_t end = std::min(line.find(' ', at), bar);
    if (end > at) fields.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  if (fields.size() < 4) return;
  std::size_t count = 0;  // w_cnt, two hexadecimal digits
  const std::string& text = fields[3];
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count, 16);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw InputError(fmt::format("a WordNet data line has w_cnt '{}', not a hexadecimal count: {}",
                                 text, line.substr(0, 80)));
  }
  std::vector<std::string_view> lemmas;
  for (std::size_t i = 0; i < count && 4 + 2 * i < fields.size(); ++i) {
    const std::string& lemma = fields[4 + 2 * i];
    lemmas.push_back(std::string_view(lemma).substr(0, lemma.find('(')));  // drop "(a)"
  }
  f(lemmas, std::string_view(line).substr(bar + 3));
}

// Each synset of the four data files in `dir`, in order: f(lemmas, gloss); at most
// max_text_file_bytes read in all.
template <class F>
void for_each_synset(const std::string& dir, F&& f) {
  std::uint64_t read = 0;
  for (const char* part : {"noun", "verb", "adj", "adv"}) {
    const std::string path = fmt::format("{}/data.{}", dir, part);
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
      throw InputError(fmt::format(
          "cannot read {}: the WordNet corpus is missing; install it with "
          "`apt-get install wordnet-base` (or bash install-deps.sh), or give --corpus FILE",
          path));
    }
    const std::uint64_t left = max_text_file_bytes - read;
    std::istringstream in(read_input_file(path, "the WordNet corpus file", left));
    read += static_cast<std::uint64_t>(in.str().size());
    std::string line;
    while (std::getline(in, line)) {
      if (line.starts_with("  ")) continue;  // the licence header
      read_synset(line, f);
    }
  }
}

}  // namespace

void append_words(std::string_view text, std::vector<std::string>& out) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_letter(text[i])) {
      ++i;
      continue;
    }
    std::string word;
    for (; i < text.size() && is_letter(text[i]); ++i) {
      const char c = text[i];
      word.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
    out.push_back(std::move(word));
  }
}

Corpus read_wordnet(const std::string& dir) {
  Corpus corpus;
  corpus.source = fmt::format("WordNet 3.0 glosses and lemmas in {}", dir);
  corpus.sentence_starts.push_back(0);
  for_each_synset(dir, [&](const std::vector<std::string_view>& lemmas, std::string_view gloss) {
    for (std::string_view lemma : lemmas) append_words(lemma, corpus.words);
    append_words(gloss, corpus.words);
    end_sentence(corpus);
  });
  require_words(corpus);
  return corpus;
}

std::string read_wordnet_text(const std::string& dir) {
  std::string text;
  for_each_synset(dir, [&](const std::vector<std::string_view>& lemmas, std::string_view gloss) {
    for (std::size_t i = 0; i < lemmas.size(); ++i) {
      std::string lemma(lemmas[i]);
      std::replace(lemma.begin(), lemma.end(), '_', ' ');
      text += (i == 0 ? "" : ", ") + lemma;
    }
    while (!gloss.empty() && (gloss.back() == ' ' || gloss.back() == '\r')) gloss.remove_suffix(1);
    text += ": ";
    text += gloss;
    text += "\n";
  });
  return text;
}

Corpus read_text(const std::string& path) {
  std::istringstream in(read_input_file(path, "the corpus file"));
  Corpus corpus;
  corpus.source = fmt::format("the text file {}", path);
  corpus.sentence_starts.push_back(0);
  std::string line;
  while (std::getline(in, line)) {
    append_words(line, corpus.words);
    end_sentence(corpus);
  }
  require_words(corpus);
  return corpus;
}

Corpus read_corpus(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return read_wordnet(path);
  const bool folder = path == default_wordnet_dir || path.ends_with('/');
  if (folder && !std::filesystem::exists(path, ec))
    return read_wordnet(path);  // says how to install
  return read_text(path);
}

}  // namespace andrea::training
