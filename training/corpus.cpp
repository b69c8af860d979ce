#include "training/corpus.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <algorithm>

#include "core/errors.hpp"

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
void append_synset(const std::string& line, std::vector<std::string>& out) {
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
  const auto lemmas = static_cast<std::size_t>(std::stoul(fields[3], nullptr, 16));  // w_cnt, hex
  for (std::size_t i = 0; i < lemmas && 4 + 2 * i < fields.size(); ++i) {
    const std::string& lemma = fields[4 + 2 * i];
    append_words(std::string_view(lemma).substr(0, lemma.find('(')), out);  // drop "(a)"
  }
  append_words(std::string_view(line).substr(bar + 3), out);
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
  for (const char* part : {"noun", "verb", "adj", "adv"}) {
    const std::string path = fmt::format("{}/data.{}", dir, part);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      throw InputError(fmt::format(
          "cannot read {}: the WordNet corpus is missing; install it with "
          "`apt-get install wordnet-base` (or bash install-deps.sh), or give --corpus FILE",
          path));
    }
    std::string line;
    while (std::getline(in, line)) {
      if (line.starts_with("  ")) continue;  // the licence header
      append_synset(line, corpus.words);
      end_sentence(corpus);
    }
  }
  require_words(corpus);
  return corpus;
}

std::string read_wordnet_text(const std::string& dir) {
  std::string text;
  for (const char* part : {"noun", "verb", "adj", "adv"}) {
    const std::string path = fmt::format("{}/data.{}", dir, part);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      throw InputError(fmt::format(
          "cannot read {}: the WordNet corpus is missing; install it with "
          "`apt-get install wordnet-base` (or bash install-deps.sh)",
          path));
    }
    std::string line;
    while (std::getline(in, line)) {
      if (line.starts_with("  ")) continue;  // the licence header
      const std::size_t bar = line.find(" | ");
      if (bar == std::string::npos) continue;
      std::vector<std::string> fields;
      std::istringstream head(line.substr(0, bar));
      for (std::string field; head >> field;) fields.push_back(field);
      if (fields.size() < 4) continue;
      const auto lemmas = static_cast<std::size_t>(std::stoul(fields[3], nullptr, 16));
      for (std::size_t i = 0; i < lemmas && 4 + 2 * i < fields.size(); ++i) {
        std::string lemma = fields[4 + 2 * i].substr(0, fields[4 + 2 * i].find('('));
        std::replace(lemma.begin(), lemma.end(), '_', ' ');
        text += (i == 0 ? "" : ", ") + lemma;
      }
      text += ": ";
      std::string gloss = line.substr(bar + 3);
      while (!gloss.empty() && (gloss.back() == ' ' || gloss.back() == '\r')) gloss.pop_back();
      text += gloss + "\n";
    }
  }
  return text;
}

Corpus read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) {
    throw InputError(fmt::format("cannot read the corpus file '{}'", path));
  }
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
