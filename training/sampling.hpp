// The random choices of skip-gram training, each a pure function of (seed, epoch, position)
// through Philox4x32-10, like the init: the same seed gives the same run, bit for bit.
//   counter = (i, j, stream, epoch + 1), key = (seed low, seed high)
// i: the word's position in the corpus; j: which draw for that word (below); word 3 is
// epoch + 1 >= 1, so no training draw shares a counter with the init (word 3 = 0 there).
#pragma once

#include <cstdint>
#include <vector>

#include "core/philox.hpp"
#include "training/vocabulary.hpp"

namespace andrea::training {

/// Word 2 of the counter: what the draw decides.
enum class Stream : std::uint32_t { subsample = 0, window = 1, negatives = 2 };

/// The four 32-bit words of Philox((i, j, stream, epoch + 1), seed).
inline Philox4x32 draw(std::uint64_t seed, Stream stream, std::int64_t epoch, std::int64_t i,
                       std::uint32_t j) {
  return philox4x32_10({{static_cast<std::uint32_t>(i), j, static_cast<std::uint32_t>(stream),
                         static_cast<std::uint32_t>(epoch + 1)}},
                       static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

/// A 32-bit word as a uniform number in [0, 1).
inline double unit(std::uint32_t word) { return word / 4294967296.0; }

/// Subsampling of frequent words (Mikolov et al. 2013, section 2.3): a word of frequency
/// f = count / total is kept with probability min(1, sqrt(t / f)); "the" (4.8% of
/// WordNet's words) is kept about 1 time in 22 with t = 1e-4. keep[id] for every row.
std::vector<double> keep_probabilities(const Vocabulary& vocab, double t);

/// Draws negatives from the unigram distribution raised to the power 0.75 (Mikolov et
/// al. 2013, section 2.2): P(w) = count(w)^0.75 / sum_v count(v)^0.75, in O(1) per draw
/// with Walker's alias method as Vose builds it (M. D. Vose, "A linear algorithm for
/// generating random numbers with a given distribution", IEEE TSE 1991): V buckets of equal
/// probability 1/V, bucket i holding word i with probability prob[i] and alias[i] otherwise.
class NegativeSampler {
 public:
  explicit NegativeSampler(const Vocabulary& vocab);
  /// u in [0, 1): bucket i = floor(u V), then the fraction f = u V - i picks word i when
  /// f < prob[i], else alias[i]. A 32-bit u gives each bucket's split a resolution of
  /// V / 2^32 (1e-5 at V = 43,776).
  std::int32_t operator()(double u) const;
  /// P(id), for the tests.
  double probability(std::int32_t id) const;

 private:
  std::vector<double> probability_;  ///< count^0.75 / sum, per row
  std::vector<double> prob_;         ///< bucket i keeps word i with this probability
  std::vector<std::int32_t> alias_;  ///< ... and gives alias_[i] otherwise
};

}  // namespace andrea::training
