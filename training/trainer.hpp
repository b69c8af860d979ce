// Skip-gram with negative sampling over a corpus: the loop around lesson 9's step.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "core/init.hpp"
#include "core/tensor.hpp"
#include "training/vocabulary.hpp"

namespace andrea::training {

/// The bounds validate() holds the settings to.
inline constexpr std::int64_t max_d_model = 65536, max_window = 1000, max_negatives = 1000,
                              max_epochs = 1000000;

/// The settings of a run. The defaults are the CLI's: on WordNet they train in about
/// a minute and a half on one core of a 2-core machine.
struct TrainOptions {
  std::int64_t d_model = 64;
  std::int64_t window = 5;     ///< context words up to `window` away on each side
  std::int64_t negatives = 5;  ///< k negatives per (centre, context) pair
  std::int64_t epochs = 10;    ///< passes over the corpus
  double lr = 0.05;            ///< learning rate at the start, decaying linearly
  double subsample = 1e-4;     ///< t of the subsampling rule; 0 keeps every word
  double init_scale = 0.1;     ///< wte starts as init_scale * the course's init
  std::uint64_t seed = default_seed;
};

/// Throws andrea::InputError when d_model, window, negatives or epochs is not a
/// positive number (or above its limit: window <= 1000, negatives <= 1000, d_model <=
/// 65536), lr or init_scale is not finite and > 0, or subsample is negative or not finite.
void validate(const TrainOptions& o);

/// Where a run stands, handed to the progress callback about 4 times a second and at the
/// end of every epoch.
struct Progress {
  std::int64_t words_done = 0, words_total = 0;  ///< corpus words read (before subsampling)
  std::int64_t epoch = 0;                        ///< 0-based
  double loss = 0.0;                             ///< mean loss per pair since the last report
  double lr = 0.0;
  double seconds = 0.0;  ///< since the start
};

/// The two trained tables: wte, the input embedding (the one the lessons study), and
/// wout, the untied output table.
struct Tables {
  Matrix wte, wout;  ///< (V, d_model) each
};

/// Where the tables live during a run: it holds wte and wout and runs each step on them.
class StepRunner {
 public:
  virtual ~StepRunner() = default;
  /// reference::sgns_step's contract on the tables held: centres (P), targets (P, 1 + k).
  virtual double sgns_step(TokenIds centres, TokenIdBatch targets, float lr) = 0;
  /// Copies the tables out: wte, wout (V, d_model).
  virtual void copy_to(FloatView wte, FloatView wout) = 0;
};

/// Makes a runner holding copies of wte and wout (V, d_model), with room for steps of at
/// most max_pairs pairs of targets_per_pair (1 + k) targets.
using RunnerFactory = std::unique_ptr<StepRunner> (*)(ConstFloatView wte, ConstFloatView wout,
                                                      std::int64_t max_pairs,
                                                      std::int64_t targets_per_pair);

/// A runner over tables that live elsewhere, such as a CUDA backend's DeviceTables (device
/// memory for the whole run): `Tables` is built from (wte, wout, max_pairs, targets_per_pair)
/// and has StepRunner's sgns_step and copy_to. `&runner_of<T>` is a RunnerFactory.
template <class Tables>
std::unique_ptr<StepRunner> runner_of(ConstFloatView wte, ConstFloatView wout,
                                      std::int64_t max_pairs, std::int64_t targets_per_pair) {
  class Runner final : public StepRunner {
   public:
    Runner(ConstFloatView wte, ConstFloatView wout, std::int64_t max_pairs, std::int64_t k1)
        : tables_(wte, wout, max_pairs, k1) {}
    double sgns_step(TokenIds centres, TokenIdBatch targets, float lr) override {
      return tables_.sgns_step(centres, targets, lr);
    }
    void copy_to(FloatView wte, FloatView wout) override { tables_.copy_to(wte, wout); }

   private:
    Tables tables_;
  };
  return std::make_unique<Runner>(wte, wout, max_pairs, targets_per_pair);
}

/// The default runner: the tables in host memory, each step reference::sgns_step.
std::unique_ptr<StepRunner> host_runner(ConstFloatView wte, ConstFloatView wout,
                                        std::int64_t max_pairs, std::int64_t targets_per_pair);

/// Trains SGNS on `ids` (the encoded corpus; sentence_starts as in Corpus):
///   wte starts as init_scale times the course's init N(0, 1) / sqrt(d_model) via Philox
///   (seed): 0.1 gives a standard deviation of 0.0125 at d_model 64, the order of
///   fastText's uniform(+-1/d_model) (0.009) and word2vec's uniform(+-0.5/d_model) (0.0045),
///   so that what is learned, not the random start, dominates rare words; wout starts at 0
///   (word2vec's choice: with both at 0 every gradient would be 0);
///   per epoch, per sentence: subsample, then for each kept word c a window of
///   b = 1 + (Philox % window) kept words on each side (word2vec's shrunk window), each
///   context o giving one pair with k negatives from unigram^0.75;
///   one sentence's pairs make one batch, one reference::sgns_step (a sentence longer
///   than 1,000 words is cut into pieces of 1,000, as word2vec does);
///   lr = lr0 * max(1e-4, 1 - words_done / (epochs * words)), linear decay as word2vec.
/// Single-threaded: the result depends only on the inputs and the seed. The steps run on
/// the runner make_runner makes (apps/backend_cuda.cpp: the CUDA kernels, tables on the
/// device), by default host_runner. Throws andrea::InputError for the cases of validate(),
/// when init_scale makes a starting value overflow float32, when a step diverges (a
/// non-finite score), and when the run trained no step (no sentence gave a pair): a run
/// that learned nothing never returns tables as if it had.
Tables train(std::span<const std::int32_t> ids, std::span<const std::int64_t> sentence_starts,
             const Vocabulary& vocab, const TrainOptions& options,
             const std::function<void(const Progress&)>& on_progress = {},
             RunnerFactory make_runner = host_runner);

}  // namespace andrea::training
