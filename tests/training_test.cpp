// Lesson 9 — training the table with skip-gram and negative sampling. The pieces of the
// step and the whole step (reference::sgns_step, or DeviceTables for CUDA) are checked
// against golden/training.json (PyTorch autograd of the same loss) on two sentences over 6
// words, with rows absent from a batch unmoved and bad input refused; the C++ build also
// checks that the loss falls, determinism, and an end-to-end run.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"

#include "training/corpus.hpp"
#include "training/trainer.hpp"
#include "training/vocabulary.hpp"
#include "reference/training.hpp"
#include "cuda/training.hpp"

namespace andrea::testing {
// Set by the program's binding (tests/support/binding.hpp): training::host_runner on the C++
// backend (reference::sgns_step: yours), the tables in device memory on the CUDA ones, each
// step your kernels (as `train --backend cudasim`); in a grade build, the tables the runner
// holds (grader/remote/tables.hpp).
extern const training::RunnerFactory your_runner;
}  // namespace andrea::testing

namespace {

using namespace andrea;
using namespace andrea::testing;

// The golden case: wte, wout (6, 2), 8 pairs of 1 + 2 targets, lr.
struct Case {
  const json& c = golden_case("training", "two-sentences");
  Matrix wte = to_matrix(c.at("wte")), wout = to_matrix(c.at("wout"));
  std::vector<std::int32_t> centres = to_ids(c.at("centres"));
  std::vector<std::int32_t> flat_targets;
  std::int64_t P = 0, K1 = 0;
  Case() {
    for (const json& row : c.at("targets")) {
      for (const std::int32_t id : to_ids(row)) flat_targets.push_back(id);
    }
    P = static_cast<std::int64_t>(centres.size());
    K1 = static_cast<std::int64_t>(flat_targets.size()) / P;
  }
  TokenIdBatch targets() const { return {flat_targets.data(), P, K1}; }
  Tolerance tol() const { return tolerance_of(c); }
};

TEST(Training, PairScoresMatchPyTorch) {
  const Case g;
  Matrix scores(g.P, g.K1);
  backend::pair_scores(g.wte, g.wout, g.centres, g.targets(), scores);
  EXPECT_TRUE(all_close("scores", scores, to_matrix(g.c.at("scores")), g.tol()));
}

TEST(Training, ScoreGradientsAndLossMatchPyTorch) {
  const Case g;
  const Matrix scores = to_matrix(g.c.at("scores"));
  Matrix grads(g.P, g.K1);
  const double loss = backend::score_gradients(scores, grads);
  EXPECT_TRUE(all_close("dloss/dscores", grads, to_matrix(g.c.at("grads")), g.tol()));
  EXPECT_TRUE(close("loss", loss, g.c.at("loss").get<double>(), g.tol()));
}

TEST(Training, ScoreGradientsHandWorked) {
  // s = 0: sigmoid = 1/2, so g = -1/2 for the context word and +1/2 for a negative;
  // each term of the loss is log 2. s = +-40: no overflow, loss ~ 0 or ~ 40.
  const float s[] = {0.0f, 0.0f, 0.0f, 40.0f, -40.0f, 40.0f};
  Matrix grads(2, 3);
  const double loss = backend::score_gradients(ConstFloatView(s, 2, 3), grads);
  const float expected[] = {-0.5f, 0.5f, 0.5f, 0.0f, 0.0f, 1.0f};
  EXPECT_TRUE(all_close("dloss/dscores", grads.view().flat(), expected, {1e-7, 0}, 3));
  EXPECT_TRUE(close("loss", loss, 3 * std::log(2.0) + 40.0, {1e-9, 1e-12}));
}

TEST(Training, RowGradientsMatchPyTorch) {
  const Case g;
  const Matrix grads = to_matrix(g.c.at("grads"));
  Matrix dcentre(g.P, 2), dtarget(g.P * g.K1, 2);
  backend::row_gradients(g.wte, g.wout, g.centres, g.targets(), grads, dcentre, dtarget);
  EXPECT_TRUE(all_close("dcentre", dcentre, to_matrix(g.c.at("dcentre")), g.tol()));
  EXPECT_TRUE(all_close("dtarget", dtarget, to_matrix(g.c.at("dtarget")), g.tol()));
}

TEST(Training, BadInput) {
  const Case g;
  Matrix scores(g.P, g.K1);
  std::vector<std::int32_t> centres = g.centres;
  centres[3] = 6;
  EXPECT_INPUT_ERROR(backend::pair_scores(g.wte, g.wout, centres, g.targets(), scores),
                     "token id 6 at position 3 is outside [0, 6)");
  Matrix wout3(6, 3);
  EXPECT_INPUT_ERROR(backend::pair_scores(g.wte, wout3, g.centres, g.targets(), scores),
                     "wout has shape (6, 3), expected (6, 2)");
  Matrix small(g.P, 2);
  EXPECT_INPUT_ERROR(backend::pair_scores(g.wte, g.wout, g.centres, g.targets(), small),
                     "scores has shape (8, 2), expected (8, 3)");
  const float nan_score[] = {0.0f, std::nanf("")};
  Matrix grads(1, 2);
  EXPECT_INPUT_ERROR(backend::score_gradients(ConstFloatView(nan_score, 1, 2), grads),
                     "scores[1] is nan");
}

// The whole step and its use of lesson 8, through the runner the trainer uses (your_runner):
// the tables copied back after each step, also after a refused one, so that "nothing changed"
// is checked where the step keeps them (host memory, device memory, a grade build's runner).
class Stepper {
 public:
  Stepper(Matrix& wte, Matrix& wout, std::int64_t max_pairs, std::int64_t k1)
      : wte_(wte), wout_(wout), runner_(your_runner(wte, wout, max_pairs, k1)) {}

  double step(TokenIds centres, TokenIdBatch targets, float lr) {
    struct CopyBack {
      Stepper& s;
      ~CopyBack() { s.runner_->copy_to(s.wte_, s.wout_); }
    } copy_back{*this};
    return runner_->sgns_step(centres, targets, lr);
  }

 private:
  Matrix &wte_, &wout_;
  std::unique_ptr<training::StepRunner> runner_;
};

TEST(Training, OneStepMatchesPyTorchAutograd) {
  Case g;
  Stepper s(g.wte, g.wout, g.P, g.K1);
  const double loss = s.step(g.centres, g.targets(), g.c.at("lr").get<float>());
  EXPECT_TRUE(close("loss", loss, g.c.at("loss").get<double>(), g.tol()));
  EXPECT_TRUE(all_close("wte after the step", g.wte, to_matrix(g.c.at("wte_after")), g.tol()));
  EXPECT_TRUE(all_close("wout after the step", g.wout, to_matrix(g.c.at("wout_after")), g.tol()));
}

TEST(Training, EachStepStartsFromClearedGradients) {
  // Two steps on one stepper equal one step on a fresh stepper from the state after the
  // first: a gradient row left over from step 1 would be added again in step 2.
  Case a, b;
  Stepper twice(a.wte, a.wout, a.P, a.K1);
  twice.step(a.centres, a.targets(), 0.5f);
  Stepper once(b.wte, b.wout, b.P, b.K1);
  once.step(b.centres, b.targets(), 0.5f);
  Stepper fresh(b.wte, b.wout, b.P, b.K1);  // starts from b's tables after one step
  twice.step(a.centres, a.targets(), 0.5f);
  fresh.step(b.centres, b.targets(), 0.5f);
  EXPECT_TRUE(all_close("wte after two steps", a.wte, b.wte, {0, 0}));
  EXPECT_TRUE(all_close("wout after two steps", a.wout, b.wout, {0, 0}));
}

TEST(Training, RowsAbsentFromTheBatchAreUnchanged) {
  Case g;  // wte rows 0 and 5 are no centre, wout row 0 is no target
  const Matrix wte_before = g.wte, wout_before = g.wout;
  Stepper s(g.wte, g.wout, g.P, g.K1);
  s.step(g.centres, g.targets(), 0.5f);
  for (const std::int64_t r : {0, 5}) {
    EXPECT_TRUE(all_close("wte row " + std::to_string(r), g.wte.row(r), wte_before.row(r), {}));
  }
  EXPECT_TRUE(all_close("wout row 0", g.wout.row(0), wout_before.row(0), {}));
  EXPECT_NE(g.wte(1, 0), wte_before(1, 0)) << "a centre row did not move";
}

TEST(Training, StepRefusesBadInputAndChangesNothing) {
  Case g;
  Stepper s(g.wte, g.wout, g.P, g.K1);
  s.step(g.centres, g.targets(), 0.5f);  // a good step first: the refusals come after real work
  const Matrix wte_before = g.wte, wout_before = g.wout;
  EXPECT_INPUT_ERROR(s.step(g.centres, g.targets(), -1.0f),
                     "learning rate -1 is not a finite number > 0");
  std::vector<std::int32_t> bad = g.flat_targets;
  bad[7] = 6;
  EXPECT_INPUT_ERROR(s.step(g.centres, TokenIdBatch(bad.data(), g.P, g.K1), 0.5f),
                     "token id 6 at position 7 is outside [0, 6)");
  Stepper small(g.wte, g.wout, 2, g.K1);
  EXPECT_INPUT_ERROR(small.step(g.centres, g.targets(), 0.5f),
                     "targets has shape (8, 3), expected (2, 3)");
  EXPECT_TRUE(all_close("wte", g.wte, wte_before, {0, 0}));
  EXPECT_TRUE(all_close("wout", g.wout, wout_before, {0, 0}));
}

TEST(Training, StepRefusesANonFiniteScore) {
  Case g;
  g.wte(g.centres[2], 0) = std::numeric_limits<float>::infinity();
  const Matrix wte_before = g.wte, wout_before = g.wout;
  Stepper s(g.wte, g.wout, g.P, g.K1);
  EXPECT_INPUT_ERROR(s.step(g.centres, g.targets(), 0.5f), "a finite value is required");
  EXPECT_TRUE(all_close("wte", g.wte, wte_before, {0, 0}));
  EXPECT_TRUE(all_close("wout", g.wout, wout_before, {0, 0}));
}

// --- End to end: your step trains a slice of WordNet -------------------------------------
// The slice: every sentence of WordNet (lemmas and gloss of one synset) that holds a word of
// lessons/09_training/pairs.tsv, one in five of them: about 4,300 sentences, 76,000 words.
// Three epochs at d_model 16 (lr 0.2, subsample 1e-3: settings for a small corpus) take
// about 0.3 s of one core for the C++ step and 5 s on the CPU execution layer. The check:
// over the pairs whose two words are rows, the mean centred cosine of related pairs minus
// that of unrelated pairs. The solution reaches 0.442; random tables give 0 +- 0.05 (the
// test checks the init too); an output-row gradient built from wte[target] instead of
// wte[centre] diverges or ends below 0.

struct Slice {
  training::Corpus corpus;
  std::vector<std::pair<std::string, std::string>> related, unrelated;
};

// The pair list beside the lesson (not the student's copy: the course's).
std::vector<std::array<std::string, 3>> course_pairs() {
  std::ifstream in(std::string(ANDREA_GOLDEN_DIR) + "/../lessons/09_training/pairs.tsv");
  std::vector<std::array<std::string, 3>> pairs;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::array<std::string, 3> p;
    if (line.empty() || line[0] == '#' || !(fields >> p[0] >> p[1] >> p[2])) continue;
    pairs.push_back(p);
  }
  return pairs;
}

// Empty corpus when WordNet is not installed.
Slice wordnet_slice() {
  Slice slice;
  const auto pairs = course_pairs();
  std::set<std::string> wanted;
  for (const auto& p : pairs) wanted.insert({p[0], p[1]});
  training::Corpus all;
  try {
    all = training::read_wordnet(std::string(training::default_wordnet_dir));
  } catch (const InputError&) {
    return slice;
  }
  slice.corpus.source = "a slice of WordNet";
  slice.corpus.sentence_starts.push_back(0);
  std::int64_t matching = 0;
  for (std::int64_t s = 0; s < all.sentences(); ++s) {
    const auto begin = all.words.begin() + all.sentence_starts[static_cast<std::size_t>(s)];
    const auto end = all.words.begin() + all.sentence_starts[static_cast<std::size_t>(s) + 1];
    if (std::none_of(begin, end, [&](const std::string& w) { return wanted.count(w) > 0; }))
      continue;
    if (matching++ % 5 != 0) continue;
    slice.corpus.words.insert(slice.corpus.words.end(), begin, end);
    slice.corpus.sentence_starts.push_back(static_cast<std::int64_t>(slice.corpus.words.size()));
  }
  for (const auto& p : pairs)
    (p[2] == "related" ? slice.related : slice.unrelated).emplace_back(p[0], p[1]);
  return slice;
}

// Mean centred cosine of the related pairs minus that of the unrelated ones (pairs whose two
// words are rows), in double: the table minus its mean row, then cos(a, b).
double pair_margin(ConstFloatView table, const training::Vocabulary& vocab, const Slice& slice,
                   std::int64_t* used) {
  const std::int64_t V = table.rows(), d = table.cols();
  std::vector<double> mean(static_cast<std::size_t>(d), 0.0);
  for (std::int64_t v = 0; v < V; ++v) {
    for (std::int64_t c = 0; c < d; ++c)
      mean[static_cast<std::size_t>(c)] += table(v, c) / static_cast<double>(V);
  }
  const auto cosine = [&](std::int32_t a, std::int32_t b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::int64_t c = 0; c < d; ++c) {
      const double x = table(a, c) - mean[static_cast<std::size_t>(c)],
                   y = table(b, c) - mean[static_cast<std::size_t>(c)];
      ab += x * y, aa += x * x, bb += y * y;
    }
    return ab / std::sqrt(aa * bb);
  };
  const auto mean_of = [&](const std::vector<std::pair<std::string, std::string>>& pairs) {
    double sum = 0;
    std::int64_t n = 0;
    for (const auto& [a, b] : pairs) {
      const auto ia = vocab.find(a), ib = vocab.find(b);
      if (!ia || !ib) continue;
      sum += cosine(*ia, *ib), ++n, ++*used;
    }
    return n > 0 ? sum / static_cast<double>(n) : 0.0;
  };
  return mean_of(slice.related) - mean_of(slice.unrelated);
}

TEST(TrainingEndToEnd, YourStepTrainsASliceOfWordNet) {
  const Slice slice = wordnet_slice();
  if (slice.corpus.words.empty()) {
    GTEST_SKIP() << "WordNet is not installed in " << training::default_wordnet_dir
                 << " (apt-get install wordnet-base): no corpus to train on";
  }
  const training::Vocabulary vocab = training::build_vocabulary(slice.corpus, 3);
  const std::vector<std::int32_t> ids = training::encode(slice.corpus, vocab);
  training::TrainOptions o;
  o.d_model = 16, o.epochs = 3, o.lr = 0.2, o.subsample = 1e-3;

  Matrix init(vocab.size(),
              o.d_model);  // the table training starts from (the scale changes no cosine)
  for (std::int64_t e = 0; e < init.view().size(); ++e)
    init.view().data()[e] = init_value(o.seed, Table::token, e, o.d_model);
  std::int64_t used = 0;
  const double before = pair_margin(init, vocab, slice, &used);
  ASSERT_GE(used, 60) << "too few of the pairs' words are rows of this slice's vocabulary";
  EXPECT_LT(std::abs(before), 0.1)
      << "the random init already separates the pairs: margin " << before;

  const auto start = std::chrono::steady_clock::now();
  training::Tables tables;
  try {
    tables = training::train(ids, slice.corpus.sentence_starts, vocab, o, {}, your_runner);
  } catch (const InputError& e) {
    FAIL()
        << "your step diverged on a slice of WordNet (" << ids.size()
        << " words, 3 epochs) that the "
        << "solution trains with these settings: look at your step - row_gradients' dtarget from "
        << "wte[centres[p]], the gradient rows cleared after each step. The run said: " << e.what();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  used = 0;
  const double after = pair_margin(tables.wte, vocab, slice, &used);
  std::printf(
      "slice of WordNet: %zu words, V = %lld; 3 epochs in %.1f s; pair margin (centred) %.3f, at "
      "init %.3f\n",
      ids.size(), static_cast<long long>(vocab.size()), seconds, after, before);
  EXPECT_GT(after, 0.2)
      << "after training " << ids.size() << " words x 3 epochs with your step, related pairs "
      << "are not closer than unrelated ones: mean centred cosine, related minus unrelated, "
      << after << " (random tables: " << before << "; the solution: 0.442). Check row_gradients: "
      << "dtarget[p (1 + k) + j] = g[p][j] wte[centres[p]], dcentre[p] = sum_j g[p][j] "
         "wout[targets[p][j]]";
}

// The training loop: the C++ reference. (The four tests named here run on the cpu backend
// alone; a test added below runs on every backend unless it is named too.)
ANDREA_ONLY_ON("Training.LossFallsOnASmallCorpus:Training.SameSeedSameBitsOtherSeedOtherBits:"
               "Training.LongSentencesAreCutEvery1000Words:Training.EndToEndSimilarWordsEndUpClose",
               "cpu");

// A small corpus with a planted structure: three kinds of word (animals, days,
// instruments), each seen with its own context words, plus function words shared by all.
training::Corpus planted_corpus() {
  const char* kinds[3][2][5] = {
      {{"cat", "dog", "horse", "cow", "sheep"}, {"fur", "tail", "eats", "barn", "paws"}},
      {{"monday", "tuesday", "friday", "sunday", "saturday"},
       {"week", "morning", "meeting", "holiday", "calendar"}},
      {{"piano", "violin", "drum", "flute", "xylophone"},
       {"plays", "music", "concert", "band", "sound"}}};
  const char* shared[] = {"the", "a", "on", "in", "and"};
  training::Corpus corpus;
  corpus.source = "the planted test corpus";
  corpus.sentence_starts.push_back(0);
  for (std::uint32_t s = 0; s < 3000; ++s) {
    const Philox4x32 r = philox4x32_10({{s, 0, 99, 0}}, 7, 0);
    const auto& kind = kinds[s % 3];
    corpus.words.push_back(shared[r.v[0] % 5]);
    corpus.words.push_back(kind[0][r.v[1] % 5]);
    corpus.words.push_back(kind[1][r.v[2] % 5]);
    corpus.words.push_back(shared[(r.v[0] >> 8) % 5]);
    corpus.words.push_back(kind[1][r.v[3] % 5]);
    corpus.sentence_starts.push_back(static_cast<std::int64_t>(corpus.words.size()));
  }
  return corpus;
}

struct TrainedRun {
  training::Vocabulary vocab;
  training::Tables tables;
  std::vector<double> epoch_loss;
};

TrainedRun train_planted(const training::TrainOptions& options) {
  const training::Corpus corpus = planted_corpus();
  TrainedRun run{training::build_vocabulary(corpus, 1), {}, {}};
  const std::vector<std::int32_t> ids = training::encode(corpus, run.vocab);
  std::int64_t epoch = -1;
  run.tables = training::train(
      ids, corpus.sentence_starts, run.vocab, options,
      [&](const training::Progress& p) {
        if (p.epoch != epoch) run.epoch_loss.push_back(p.loss);  // the first report of each epoch
        epoch = p.epoch;
        run.epoch_loss.back() = p.loss;  // ... replaced by its last
      },
      your_runner);
  return run;
}

training::TrainOptions small_options() {
  training::TrainOptions o;
  o.d_model = 16;
  o.window = 2;
  o.epochs = 8;
  o.subsample = 0.0;
  return o;
}

TEST(Training, LossFallsOnASmallCorpus) {
  const TrainedRun run = train_planted(small_options());
  ASSERT_EQ(run.epoch_loss.size(), 8u);
  // At the start wout = 0: every score is 0, the loss per pair 1 + k = 6 terms of log 2.
  const double at_init = 6 * std::log(2.0);
  EXPECT_LT(run.epoch_loss.front(), 0.75 * at_init)
      << "loss per pair, first epoch " << run.epoch_loss.front();
  EXPECT_LT(run.epoch_loss.back(), run.epoch_loss.front())
      << "loss per pair, first epoch " << run.epoch_loss.front() << ", last "
      << run.epoch_loss.back();
}

TEST(Training, SameSeedSameBitsOtherSeedOtherBits) {
  training::TrainOptions o = small_options();
  o.epochs = 2;
  const TrainedRun a = train_planted(o), b = train_planted(o);
  EXPECT_TRUE(all_close("wte of two runs", a.tables.wte, b.tables.wte, {}));
  EXPECT_TRUE(all_close("wout of two runs", a.tables.wout, b.tables.wout, {}));
  o.seed += 1;
  const TrainedRun c = train_planted(o);
  EXPECT_NE(a.tables.wte(5, 0), c.tables.wte(5, 0));
}

TEST(Training, LongSentencesAreCutEvery1000Words) {
  // One sentence of 2,500 words trains exactly as the same words in lines of 1,000, 1,000, 500.
  training::Corpus one = planted_corpus();
  one.words.resize(2500);
  one.sentence_starts = {0, 2500};
  training::Corpus three = one;
  three.sentence_starts = {0, 1000, 2000, 2500};
  const training::Vocabulary vocab = training::build_vocabulary(one, 1);
  const std::vector<std::int32_t> ids = training::encode(one, vocab);
  training::TrainOptions o = small_options();
  o.epochs = 1;
  const training::Tables a = training::train(ids, one.sentence_starts, vocab, o, {}, your_runner);
  const training::Tables b = training::train(ids, three.sentence_starts, vocab, o, {}, your_runner);
  EXPECT_TRUE(all_close("wte", a.wte, b.wte, {}));
  EXPECT_TRUE(all_close("wout", a.wout, b.wout, {}));
}

// out(i, j) = cos(table[words[i]], table[words[j]]), in double: the test's own, so that lesson
// 9's tests need no earlier lesson's cosine (training::word_cosines is lesson 3's).
Matrix cosines(ConstFloatView table, const training::Vocabulary& vocab,
               const std::vector<std::string>& words) {
  const auto n = static_cast<std::int64_t>(words.size());
  Matrix out(n, n);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      const auto a = table.row(*vocab.find(words[static_cast<std::size_t>(i)]));
      const auto b = table.row(*vocab.find(words[static_cast<std::size_t>(j)]));
      double ab = 0, aa = 0, bb = 0;
      for (std::size_t c = 0; c < a.size(); ++c)
        ab += double{a[c]} * b[c], aa += double{a[c]} * a[c], bb += double{b[c]} * b[c];
      out(i, j) = static_cast<float>(ab / std::sqrt(aa * bb));
    }
  }
  return out;
}

// Mean cosine within a kind minus mean cosine across kinds, over the 15 kind words.
double planted_margin(ConstFloatView table, const training::Vocabulary& vocab) {
  const std::vector<std::string> words = {"cat",    "dog",     "horse",  "cow",    "sheep",
                                          "monday", "tuesday", "friday", "sunday", "saturday",
                                          "piano",  "violin",  "drum",   "flute",  "xylophone"};
  const Matrix cos = cosines(table, vocab, words);
  double within = 0, across = 0;
  int n_within = 0, n_across = 0;
  for (std::int64_t i = 0; i < 15; ++i) {
    for (std::int64_t j = i + 1; j < 15; ++j) {
      if (i / 5 == j / 5)
        within += cos(i, j), ++n_within;
      else
        across += cos(i, j), ++n_across;
    }
  }
  return within / n_within - across / n_across;
}

TEST(Training, EndToEndSimilarWordsEndUpClose) {
  const TrainedRun run = train_planted(small_options());
  Matrix random(run.vocab.size(), 16);  // the tables training starts from
  for (std::int64_t e = 0; e < random.view().size(); ++e)
    random.view().data()[e] = init_value(default_seed, Table::token, e, 16);
  const double before = planted_margin(random, run.vocab),
               after = planted_margin(run.tables.wte, run.vocab);
  EXPECT_LT(std::abs(before), 0.15) << "the random init already separates the kinds";
  EXPECT_GT(after, 0.5) << "within-kind minus across-kind cosine after training: " << after
                        << " (at init: " << before << ")";
  const Matrix cos = cosines(run.tables.wte, run.vocab, {"cat", "dog", "tuesday", "xylophone"});
  EXPECT_GT(cos(0, 1) - cos(0, 2), 0.2)
      << "cos(cat, dog) " << cos(0, 1) << " cos(cat, tuesday) " << cos(0, 2);
  EXPECT_GT(cos(0, 1) - cos(0, 3), 0.2)
      << "cos(cat, dog) " << cos(0, 1) << " cos(cat, xylophone) " << cos(0, 3);
}

// The edges: ids 0 and V - 1 as centres and targets, the tables and every output inside
// poisoned frames (a read of row -1 or V returns NaN; a write past an output shows).
// Small dyadic values: every product and sum is exact.
TEST(Training, EdgesLastRowsInsideAPoisonedFrame) {
  const std::int64_t V = 7, d = 3, P = 3, K1 = 2;
  Matrix w(V, d), o(V, d);
  for (std::int64_t v = 0; v < V; ++v) {
    for (std::int64_t c = 0; c < d; ++c) {
      w(v, c) = 0.5f * static_cast<float>(v) - 0.25f * static_cast<float>(c);
      o(v, c) = 0.25f * static_cast<float>(v + 1) + 0.5f * static_cast<float>(c) - 1.0f;
    }
  }
  const Framed wte(w), wout(o);
  const std::vector<std::int32_t> centres = {6, 0, 6};
  const std::vector<std::int32_t> targets = {0, 6, 6, 5, 6, 0};
  const TokenIdBatch t(targets.data(), P, K1);
  Framed scores(P, K1);
  scores.fill(kPoison);
  backend::pair_scores(wte, wout, centres, t, scores);
  Matrix expected(P, K1);
  for (std::int64_t p = 0; p < P; ++p) {
    for (std::int64_t j = 0; j < K1; ++j) {
      for (std::int64_t c = 0; c < d; ++c)
        expected(p, j) += w(centres[static_cast<std::size_t>(p)], c) * o(t(p, j), c);
    }
  }
  EXPECT_TRUE(all_close("scores (centres 6, 0, 6; targets 0, 6 | 6, 5 | 6, 0)", scores.view(),
                        expected, {}));
  EXPECT_TRUE(scores.untouched("scores"));

  Framed grads(P, K1);
  grads.fill(kPoison);
  backend::score_gradients(scores, grads);
  EXPECT_TRUE(grads.untouched("grads"));
  const float g[] = {-0.5f, 0.25f, -0.75f, 0.5f, -0.25f, 1.0f};  // exact gradients for the rows
  Framed dcentre(P, d), dtarget(P * K1, d);
  dcentre.fill(kPoison), dtarget.fill(kPoison);
  backend::row_gradients(wte, wout, centres, t, ConstFloatView(g, P, K1), dcentre, dtarget);
  Matrix want_centre(P, d), want_target(P * K1, d);
  for (std::int64_t p = 0; p < P; ++p) {
    for (std::int64_t j = 0; j < K1; ++j) {
      for (std::int64_t c = 0; c < d; ++c) {
        want_centre(p, c) += g[p * K1 + j] * o(t(p, j), c);
        want_target(p * K1 + j, c) = g[p * K1 + j] * w(centres[static_cast<std::size_t>(p)], c);
      }
    }
  }
  EXPECT_TRUE(all_close("dcentre", dcentre.view(), want_centre, {}));
  EXPECT_TRUE(all_close("dtarget (row p (1 + k) + j = g[p][j] wte[centres[p]])", dtarget.view(),
                        want_target, {}));
  EXPECT_TRUE(dcentre.untouched("dcentre"));
  EXPECT_TRUE(dtarget.untouched("dtarget"));
}

}  // namespace
