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
    probability_.push_back(std::pow(static_cast<double>(c), 0.75));
    sum += probability_.back();
  }
  for (double& p : probability_) p /= sum;
  // Vose: scale to mean 1; pair each bucket under 1 with one over 1, which gives it the
  // missing mass and keeps the rest. Both lists are worked in ascending id order.
  const auto n = static_cast<std::int32_t>(probability_.size());
  prob_.assign(probability_.size(), 1.0);
  alias_.resize(probability_.size());
  std::vector<double> scaled(probability_.size());
  std::vector<std::int32_t> small, large;
  for (std::int32_t i = n - 1; i >= 0; --i) {  // pushed backwards: popped ascending
    scaled[static_cast<std::size_t>(i)] = probability_[static_cast<std::size_t>(i)] * n;
    alias_[static_cast<std::size_t>(i)] = i;
    (scaled[static_cast<std::size_t>(i)] < 1.0 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const std::int32_t s = small.back(), l = large.back();
    small.pop_back();
    prob_[static_cast<std::size_t>(s)] = scaled[static_cast<std::size_t>(s)];
    alias_[static_cast<std::size_t>(s)] = l;
    scaled[static_cast<std::size_t>(l)] -= 1.0 - scaled[static_cast<std::size_t>(s)];
    if (scaled[static_cast<std::size_t>(l)] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left holds 1 up to rounding: prob_ stays 1 (its own word every time).
}

std::int32_t NegativeSampler::operator()(double u) const {
  const double x = u * static_cast<double>(prob_.size());
  const auto i = std::min(static_cast<std::size_t>(x), prob_.size() - 1);
  return x - static_cast<double>(i) < prob_[i] ? static_cast<std::int32_t>(i) : alias_[i];
}

double NegativeSampler::probability(std::int32_t id) const {
  return probability_[static_cast<std::size_t>(id)];
}

}  // namespace andrea::training
