// What training shows: cosine similarities between the rows of words (lesson 3's cosine).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.hpp"
#include "training/vocabulary.hpp"

namespace andrea::training {

/// The table minus its mean row: row v - (1/V) sum_u row u. Skip-gram's rows all share one
/// direction (every word must score low against the frequent words drawn as negatives; Mimno
/// and Thompson, "The strange geometry of skip-gram with negative sampling", EMNLP 2017),
/// which lifts every raw cosine; centring removes it (Mu and Viswanath, "All-but-the-Top",
/// ICLR 2018, step 1).  table (V, d_model) -> (V, d_model); the mean summed in double.
Matrix centred(ConstFloatView table);

/// out[i][j] = cos(table[id of words[i]], table[id of words[j]]).  table (V, d_model).
/// Throws andrea::InputError naming the first word not in the vocabulary.
Matrix word_cosines(ConstFloatView table, const Vocabulary& vocab,
                    const std::vector<std::string>& words);

/// The `k` rows most similar to `word` by cosine, itself and <unk> excluded, most similar
/// first (ties: lower id first). Throws andrea::InputError when the word is unknown.
std::vector<std::pair<std::string, float>> nearest(ConstFloatView table, const Vocabulary& vocab,
                                                   const std::string& word, std::int64_t k = 10);

/// A pair of words and whether a person calls them related (pairs.tsv).
struct WordPair {
  std::string a, b;
  bool related = false;
};

/// Reads lines "word<TAB>word<TAB>related|unrelated"; '#' starts a comment line.
/// Throws andrea::InputError on an unreadable file or a malformed line.
std::vector<WordPair> read_pairs(const std::string& path);

/// How well the table separates related from unrelated pairs.
struct PairReport {
  std::vector<float> cosines;  ///< per pair, in the list's order
  double mean_related = 0.0, mean_unrelated = 0.0;
  double median_unrelated = 0.0;
  double related_above_median = 0.0;  ///< share of related pairs above median_unrelated
  std::int64_t related = 0, unrelated = 0;
};
/// Throws andrea::InputError naming a word of the list that is not in the vocabulary,
/// or when the list lacks related or unrelated pairs (run before training, so that a bad
/// list fails before any work).
void validate_pairs(const std::vector<WordPair>& pairs, const Vocabulary& vocab);

/// validate_pairs, then the cosines of every pair. Throws as validate_pairs.
PairReport evaluate_pairs(ConstFloatView table, const Vocabulary& vocab,
                          const std::vector<WordPair>& pairs);

}  // namespace andrea::training
