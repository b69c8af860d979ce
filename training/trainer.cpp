#include "training/trainer.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/errors.hpp"
#include "training/sampling.hpp"

namespace andrea::training {

namespace {

constexpr std::int64_t kMaxSentence = 1000;

void positive(const char* what, std::int64_t value, std::int64_t limit) {
  if (value < 1 || value > limit) {
    throw InputError(fmt::format("{} {} is not in [1, {}]", what, value, limit));
  }
}

// One sentence's pairs: centres (P) and targets (P, 1 + k), column 0 the context word.
struct Batch {
  std::vector<std::int32_t> centres, targets;
};

void make_pairs(std::span<const std::int32_t> ids, std::int64_t begin, std::int64_t end,
                std::int64_t epoch, const TrainOptions& o, const std::vector<double>& keep,
                const NegativeSampler& sample, Batch& batch) {
  batch.centres.clear();
  batch.targets.clear();
  std::vector<std::int64_t> kept;  // corpus positions of the words that survive subsampling
  for (std::int64_t i = begin; i < end; ++i) {
    const std::int32_t id = ids[static_cast<std::size_t>(i)];
    if (unit(draw(o.seed, Stream::subsample, epoch, i, 0).v[0]) <
        keep[static_cast<std::size_t>(id)]) {
      kept.push_back(i);
    }
  }
  const auto n = static_cast<std::int64_t>(kept.size());
  for (std::int64_t a = 0; a < n; ++a) {
    const std::int64_t i = kept[static_cast<std::size_t>(a)];
    const std::int64_t b = 1 + draw(o.seed, Stream::window, epoch, i, 0).v[0] % o.window;
    std::uint32_t slot = 0;
    for (std::int64_t at = std::max<std::int64_t>(0, a - b); at <= std::min(n - 1, a + b); ++at) {
      if (at == a) continue;
      batch.centres.push_back(ids[static_cast<std::size_t>(i)]);
      batch.targets.push_back(ids[static_cast<std::size_t>(kept[static_cast<std::size_t>(at)])]);
      for (std::int64_t m = 0; m < o.negatives; ++m) {  // 4 negatives per Philox draw
        const std::uint32_t j = slot << 16 | static_cast<std::uint32_t>(m / 4);
        batch.targets.push_back(
            sample(unit(draw(o.seed, Stream::negatives, epoch, i, j).v[m % 4])));
      }
      ++slot;
    }
  }
}

// The message of a run whose scores ran off to infinity. Early in the run (the first 1% of
// its words) the usual cause is the step itself - gradient rows not cleared between steps,
// or the output rows' gradient built from the wrong row - so that comes first; later, or
// once lesson 9's tests pass, the settings.
std::string diverged(const Progress& p, const char* what) {
  const double share = static_cast<double>(p.words_done) /
                       static_cast<double>(std::max<std::int64_t>(1, p.words_total));
  const std::string where = fmt::format(
      "training diverged in epoch {}, {} words into the run ({:.2g}%), at lr {:.3g}: {}",
      p.epoch + 1, p.words_done, 100.0 * share, p.lr, what);
  const std::string settings =
      "a smaller --lr or --init-scale, fewer --negatives, or a corpus with shorter lines (each "
      "line is one step)";
  if (share < 0.01) {
    return where +
           "; so early, the step itself is the likely cause: check that sgns_step clears the "
           "gradient "
           "rows of dwte and dwout after each update (zero_rows) and builds each output row's "
           "gradient "
           "from wte[centre] (lesson 9's tests, ctest -L L09, name the piece); if they pass, try " +
           settings;
  }
  return where + "; try " + settings;
}

// wte drawn as lesson 6 draws a table, times o.init_scale; wout zero (as word2vec's syn1neg).
Tables initial_tables(std::int64_t V, std::int64_t d, const TrainOptions& o) {
  Tables tables{Matrix(V, d), Matrix(V, d)};
  for (std::int64_t e = 0; e < V * d; ++e) {
    const float w = static_cast<float>(o.init_scale) * init_value(o.seed, Table::token, e, d);
    if (!std::isfinite(w)) {
      throw InputError(
          fmt::format("init scale {} overflows float32: wte[{}][{}] would start as {}; try a "
                      "scale of at most 1e30",
                      o.init_scale, e / d, e % d, w));
    }
    tables.wte.view().data()[e] = w;
  }
  return tables;
}

// The words of the longest batch. A batch is one sentence, cut into pieces of at most
// kMaxSentence words (as word2vec's MAX_SENTENCE_LENGTH): a text without line breaks must not
// make one giant batch.
std::int64_t longest_batch(std::span<const std::int64_t> sentence_starts) {
  std::int64_t longest = 1;
  for (std::size_t s = 0; s + 1 < sentence_starts.size(); ++s) {
    longest =
        std::max(longest, std::min(kMaxSentence, sentence_starts[s + 1] - sentence_starts[s]));
  }
  return longest;
}

// A run's progress, passed to on_progress at most every 250 ms and at the end of each epoch,
// with the mean loss per pair since the last report.
class Reporter {
 public:
  Reporter(std::int64_t words_total, double lr,
           const std::function<void(const Progress&)>& on_progress)
      : progress{0, words_total, 0, 0.0, lr, 0.0}, on_progress_(on_progress) {}

  void add(double loss, std::int64_t pairs) {
    loss_sum_ += loss;
    loss_pairs_ += pairs;
  }

  void report(bool force) {
    const Clock::time_point now = Clock::now();
    if (!on_progress_ || (!force && now - last_report_ < std::chrono::milliseconds(250))) return;
    progress.loss = loss_pairs_ > 0 ? loss_sum_ / static_cast<double>(loss_pairs_) : progress.loss;
    progress.seconds = std::chrono::duration<double>(now - start_).count();
    on_progress_(progress);
    last_report_ = now;
    loss_sum_ = 0.0;
    loss_pairs_ = 0;
  }

  Progress progress;

 private:
  using Clock = std::chrono::steady_clock;
  const std::function<void(const Progress&)>& on_progress_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_report_ = start_;
  double loss_sum_ = 0.0;
  std::int64_t loss_pairs_ = 0;
};

// Why a run that made no step has no result.
std::string no_step(std::int64_t words, const TrainOptions& o) {
  return fmt::format(
      "trained no step: no sentence of the {} words gave a (centre, context) pair (a pair needs "
      "two words of one line{}); give a corpus with more words per line",
      words,
      o.subsample > 0
          ? fmt::format(" kept by subsampling with t = {}: --subsample 0 keeps every word",
                        o.subsample)
          : std::string());
}

}  // namespace

void validate(const TrainOptions& o) {
  positive("d_model", o.d_model, max_d_model);
  positive("window", o.window, max_window);
  positive("negatives", o.negatives, max_negatives);
  positive("epochs", o.epochs, max_epochs);
  if (!std::isfinite(o.lr) || !(o.lr > 0.0)) {
    throw InputError(fmt::format("learning rate {} is not a finite number > 0", o.lr));
  }
  if (!std::isfinite(o.init_scale) || !(o.init_scale > 0.0)) {
    throw InputError(fmt::format("init scale {} is not a finite number > 0", o.init_scale));
  }
  if (!std::isfinite(o.subsample) || o.subsample < 0.0) {
    throw InputError(
        fmt::format("subsample threshold {} is not a finite number >= 0", o.subsample));
  }
}

Tables train(std::span<const std::int32_t> ids, std::span<const std::int64_t> sentence_starts,
             const Vocabulary& vocab, const TrainOptions& o,
             const std::function<void(const Progress&)>& on_progress, RunnerFactory make_runner) {
  validate(o);
  const std::int64_t V = vocab.size(), d = o.d_model, K1 = 1 + o.negatives;
  const auto words = static_cast<std::int64_t>(ids.size());
  Tables tables = initial_tables(V, d, o);
  const std::vector<double> keep = keep_probabilities(vocab, o.subsample);
  const NegativeSampler sample(vocab);
  const std::unique_ptr<StepRunner> runner =
      make_runner(tables.wte, tables.wout, longest_batch(sentence_starts) * 2 * o.window, K1);
  Batch batch;
  Reporter reporter(words * o.epochs, o.lr, on_progress);
  Progress& progress = reporter.progress;
  std::int64_t steps = 0;

  for (std::int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    progress.epoch = epoch;
    const auto step = [&](std::int64_t begin, std::int64_t end) {  // one batch: words [begin, end)
      make_pairs(ids, begin, end, epoch, o, keep, sample, batch);
      const double done =
          static_cast<double>(progress.words_done) / static_cast<double>(progress.words_total);
      progress.lr = o.lr * std::max(1e-4, 1.0 - done);
      if (!batch.centres.empty()) {
        const auto P = static_cast<std::int64_t>(batch.centres.size());
        try {
          reporter.add(runner->sgns_step(batch.centres, TokenIdBatch(batch.targets.data(), P, K1),
                                         static_cast<float>(progress.lr)),
                       P);
        } catch (const InputError& e) {  // the ids are the corpus's own: a score ran off to inf
          throw InputError(diverged(progress, e.what()));
        }
        ++steps;
      }
      progress.words_done += end - begin;
      reporter.report(false);
    };
    for (std::size_t s = 0; s + 1 < sentence_starts.size(); ++s) {
      for (std::int64_t at = sentence_starts[s]; at < sentence_starts[s + 1]; at += kMaxSentence) {
        step(at, std::min(at + kMaxSentence, sentence_starts[s + 1]));
      }
    }
    reporter.report(true);  // at the end of every epoch
  }
  if (steps == 0) throw InputError(no_step(words, o));  // the tables are the init, not a result
  runner->copy_to(tables.wte, tables.wout);
  return tables;
}

}  // namespace andrea::training
