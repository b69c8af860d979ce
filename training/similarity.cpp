#include "training/similarity.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <sstream>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "reference/dot.hpp"

namespace andrea::training {

Matrix centred(ConstFloatView table) {
  std::vector<double> mean(static_cast<std::size_t>(table.cols()), 0.0);
  for (std::int64_t v = 0; v < table.rows(); ++v) {
    for (std::int64_t c = 0; c < table.cols(); ++c)
      mean[static_cast<std::size_t>(c)] += table(v, c);
  }
  Matrix out(table.rows(), table.cols());
  for (std::int64_t v = 0; v < table.rows(); ++v) {
    for (std::int64_t c = 0; c < table.cols(); ++c) {
      out(v, c) = static_cast<float>(table(v, c) - mean[static_cast<std::size_t>(c)] /
                                                       static_cast<double>(table.rows()));
    }
  }
  return out;
}

Matrix word_cosines(ConstFloatView table, const Vocabulary& vocab,
                    const std::vector<std::string>& words) {
  std::vector<std::int32_t> ids;
  for (const std::string& w : words) ids.push_back(vocab.at(w));
  const auto k = static_cast<std::int64_t>(ids.size());
  Matrix rows(k, table.cols()), out(k, k);
  for (std::int64_t i = 0; i < k; ++i) {
    std::ranges::copy(table.row(ids[static_cast<std::size_t>(i)]), rows.view().row(i).begin());
  }
  reference::cosine_matrix(rows, out);
  return out;
}

std::vector<std::pair<std::string, float>> nearest(ConstFloatView table, const Vocabulary& vocab,
                                                   const std::string& word, std::int64_t k) {
  const std::int32_t id = vocab.at(word);
  std::vector<std::pair<float, std::int32_t>> all;
  for (std::int32_t v = 0; v < table.rows(); ++v) {
    if (v == id || v == Vocabulary::unknown) continue;
    all.emplace_back(reference::cosine_similarity(table.row(id), table.row(v)), v);
  }
  const auto top = std::min<std::size_t>(static_cast<std::size_t>(k), all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(top), all.end(),
                    [](const auto& x, const auto& y) {
                      return x.first != y.first ? x.first > y.first : x.second < y.second;
                    });
  std::vector<std::pair<std::string, float>> out;
  for (std::size_t i = 0; i < top; ++i)
    out.emplace_back(vocab.words[static_cast<std::size_t>(all[i].second)], all[i].first);
  return out;
}

std::vector<WordPair> read_pairs(const std::string& path) {
  std::istringstream in(read_input_file(path, "the pair list"));
  std::vector<WordPair> pairs;
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    if (line.ends_with('\r')) line.pop_back();  // a list saved with CRLF line ends
    if (line.empty() || line.starts_with('#')) continue;
    const std::size_t t1 = line.find('\t'),
                      t2 = line.find('\t', t1 == std::string::npos ? t1 : t1 + 1);
    const std::string label = t2 == std::string::npos ? "" : line.substr(t2 + 1);
    if (t1 == std::string::npos || t2 == std::string::npos ||
        (label != "related" && label != "unrelated")) {
      throw InputError(fmt::format(
          "{}:{}: expected 'word<TAB>word<TAB>related|unrelated', got '{}'", path, number, line));
    }
    pairs.push_back({line.substr(0, t1), line.substr(t1 + 1, t2 - t1 - 1), label == "related"});
  }
  return pairs;
}

void validate_pairs(const std::vector<WordPair>& pairs, const Vocabulary& vocab) {
  std::int64_t related = 0;
  for (const WordPair& p : pairs) {
    vocab.at(p.a);  // "the word 'kitten' is not in the vocabulary (2445 words)"
    vocab.at(p.b);
    related += p.related ? 1 : 0;
  }
  const auto unrelated = static_cast<std::int64_t>(pairs.size()) - related;
  if (related == 0 || unrelated == 0) {
    throw InputError(fmt::format("the pair list needs related and unrelated pairs: {} and {}",
                                 related, unrelated));
  }
}

PairReport evaluate_pairs(ConstFloatView table, const Vocabulary& vocab,
                          const std::vector<WordPair>& pairs) {
  validate_pairs(pairs, vocab);
  PairReport r;
  std::vector<float> related, unrelated;
  for (const WordPair& p : pairs) {
    const float c =
        reference::cosine_similarity(table.row(vocab.at(p.a)), table.row(vocab.at(p.b)));
    r.cosines.push_back(c);
    (p.related ? related : unrelated).push_back(c);
  }
  const auto mean = [](const std::vector<float>& v) {
    double s = 0.0;
    for (const float x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  r.mean_related = mean(related);
  r.mean_unrelated = mean(unrelated);
  std::vector<float> sorted = unrelated;
  std::ranges::sort(sorted);
  const std::size_t m = sorted.size();
  r.median_unrelated = m % 2 ? sorted[m / 2] : 0.5 * (double{sorted[m / 2 - 1]} + sorted[m / 2]);
  r.related_above_median = static_cast<double>(std::ranges::count_if(
                               related, [&](float c) { return c > r.median_unrelated; })) /
                           static_cast<double>(related.size());
  r.related = static_cast<std::int64_t>(related.size());
  r.unrelated = static_cast<std::int64_t>(unrelated.size());
  return r;
}

}  // namespace andrea::training
