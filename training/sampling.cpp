#include "training/sampling.hpp"

#include <algorithm>
#include <cmath>

namespace andrea::training {

std::vector<double> keep_probabilities(const Vocabulary& vocab, double t) {
  double total = 0.0;
  for (const std::int64_t c : vocab.counts) total += static_cast<double>(c);
  std::vector<double> keep;
  for (const std::int64_t c : vocab.counts) {
    const double f = static_cast<double>(c) / total;
    keep.push_back(t <= 0.0 || f <= 0.0 ? 1.0 : std::min(1.0, std::sqrt(t / f)));
  }
  return keep;
}

NegativeSampler::NegativeSampler(const Vocabulary& vocab) {
  double sum = 0.0;
  for (const std::int64_t c : vocab.counts) {
    sum += std::pow(static_cast<double>(c), 0.75);
    cumulative_.push_back(sum);
  }
}

std::int32_t NegativeSampler::operator()(double u) const {
  const double target = u * cumulative_.back();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), target);
  const auto id = it - cumulative_.begin();
  return static_cast<std::int32_t>(std::min<std::ptrdiff_t>(id, std::ssize(cumulative_) - 1));
}

double NegativeSampler::probability(std::int32_t id) const {
  const double below = id == 0 ? 0.0 : cumulative_[static_cast<std::size_t>(id) - 1];
  return (cumulative_[static_cast<std::size_t>(id)] - below) / cumulative_.back();
}

}  // namespace andrea::training
