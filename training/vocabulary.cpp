#include "training/vocabulary.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <sstream>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/numbers.hpp"

namespace andrea::training {

namespace {

void add_row(Vocabulary& vocab, std::string word, std::int64_t count, const std::string& where) {
  const auto id = static_cast<std::int32_t>(vocab.words.size());
  if (!vocab.ids.emplace(word, id).second) {
    throw InputError(fmt::format("{}: the word '{}' appears twice", where, word));
  }
  vocab.words.push_back(std::move(word));
  vocab.counts.push_back(count);
}

}  // namespace

std::optional<std::int32_t> Vocabulary::find(std::string_view word) const {
  const auto it = ids.find(std::string(word));
  if (it == ids.end()) return std::nullopt;
  return it->second;
}

std::int32_t Vocabulary::at(std::string_view word) const {
  if (const auto id = find(word)) return *id;
  throw InputError(fmt::format("the word '{}' is not in the vocabulary ({} words)", word, size()));
}

Vocabulary build_vocabulary(const Corpus& corpus, std::int64_t min_count) {
  if (min_count < 1) throw InputError(fmt::format("min count {} is not >= 1", min_count));
  std::unordered_map<std::string, std::int64_t> counts;
  for (const std::string& w : corpus.words) ++counts[w];
  std::vector<std::pair<std::string, std::int64_t>> kept;
  std::int64_t rare = 0;
  for (auto& [word, count] : counts) {
    if (count >= min_count)
      kept.emplace_back(word, count);
    else
      rare += count;
  }
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (kept.empty()) {
    throw InputError(
        fmt::format("a vocabulary of fewer than 2 words: no word of {} is seen {} times or more",
                    corpus.source, min_count));
  }
  Vocabulary vocab;
  add_row(vocab, "<unk>", rare, "vocabulary");
  for (auto& [word, count] : kept) add_row(vocab, word, count, "vocabulary");
  return vocab;
}

std::vector<std::int32_t> encode(const Corpus& corpus, const Vocabulary& vocab) {
  std::vector<std::int32_t> ids;
  ids.reserve(corpus.words.size());
  for (const std::string& w : corpus.words)
    ids.push_back(vocab.find(w).value_or(Vocabulary::unknown));
  return ids;
}

Vocabulary parse_vocabulary(std::string_view text, std::string_view source) {
  Vocabulary vocab;
  std::int64_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line(text.substr(at, end - at));
    at = end + 1;
    ++number;
    std::istringstream fields(line);
    std::string word, count_text, rest;
    const bool two = (fields >> word >> count_text) && !(fields >> rest);
    const std::int64_t count = two ? to_integer<std::int64_t>(count_text).value_or(-1) : -1;
    if (count < 0) {  // a count by the rule of core/numbers.hpp
      throw InputError(fmt::format("{}:{}: expected 'word count', got '{}'", source, number,
                                   line.substr(0, 80) + (line.size() > 80 ? "..." : "")));
    }
    add_row(vocab, std::move(word), count, fmt::format("{}:{}", source, number));
  }
  if (vocab.size() < 2) {
    throw InputError(fmt::format("{}: a vocabulary of fewer than 2 words", source));
  }
  return vocab;
}

Vocabulary read_vocabulary(const std::string& path) {
  return parse_vocabulary(read_input_file(path, "the vocabulary file"), path);
}

std::string vocabulary_text(const Vocabulary& vocab) {
  std::string out;
  for (std::int64_t id = 0; id < vocab.size(); ++id) {
    out += fmt::format("{} {}\n", vocab.words[static_cast<std::size_t>(id)],
                       vocab.counts[static_cast<std::size_t>(id)]);
  }
  return out;
}

}  // namespace andrea::training
