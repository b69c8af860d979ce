// Lesson 9's machinery around the step (training/): option checks, the word rule and the
// vocabulary. Not the student's exercise, so not graded: label core-cpu.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/errors.hpp"
#include "training/corpus.hpp"
#include "training/sampling.hpp"
#include "training/token_corpus.hpp"
#include "training/trainer.hpp"
#include "training/vocabulary.hpp"

#define EXPECT_INPUT_ERROR(statement, text) \
  EXPECT_THAT([&] { statement; },           \
              ::testing::ThrowsMessage<::andrea::InputError>(::testing::HasSubstr(text)))

namespace {

using namespace andrea;

TEST(Training, OptionsMustBePositive) {
  training::TrainOptions o;
  o.window = 0;
  EXPECT_INPUT_ERROR(training::validate(o), "window 0 is not in [1, 1000]");
  o = {};
  o.negatives = -1;
  EXPECT_INPUT_ERROR(training::validate(o), "negatives -1 is not in [1, 1000]");
  o = {};
  o.d_model = 0;
  EXPECT_INPUT_ERROR(training::validate(o), "d_model 0 is not in [1, 65536]");
  o = {};
  o.epochs = 0;
  EXPECT_INPUT_ERROR(training::validate(o), "epochs 0 is not in [1, 1000000]");
}

TEST(Training, VocabularyRule) {
  training::Corpus corpus;
  corpus.source = "test";
  training::append_words("The cat's cat, a CAT and_a dog!", corpus.words);
  corpus.sentence_starts = {0, static_cast<std::int64_t>(corpus.words.size())};
  EXPECT_THAT(corpus.words,
              ::testing::ElementsAre("the", "cat", "s", "cat", "a", "cat", "and", "a", "dog"));
  const training::Vocabulary vocab = training::build_vocabulary(corpus, 2);
  EXPECT_THAT(vocab.words, ::testing::ElementsAre("<unk>", "cat", "a"));  // most frequent first
  EXPECT_THAT(vocab.counts, ::testing::ElementsAre(4, 3, 2));             // <unk>: the, s, and, dog
  EXPECT_INPUT_ERROR(training::build_vocabulary(corpus, 4), "a vocabulary of fewer than 2 words");
  EXPECT_INPUT_ERROR(vocab.at("dog"), "the word 'dog' is not in the vocabulary (3 words)");
}
TEST(Training, CorpusMissingSaysHowToInstall) {
  EXPECT_INPUT_ERROR(training::read_wordnet("/nonexistent/wordnet"),
                     "cannot read /nonexistent/wordnet/data.noun: the WordNet corpus is missing; "
                     "install it with `apt-get install wordnet-base`");
}

TEST(Training, NegativesFollowUnigramToThePowerThreeQuarters) {
  training::Vocabulary vocab;
  vocab.words = {"<unk>", "a", "b"};
  vocab.counts = {0, 16, 1};  // count^0.75: 0, 8, 1
  const training::NegativeSampler sample(vocab);
  EXPECT_DOUBLE_EQ(sample.probability(1), 8.0 / 9.0);
  EXPECT_DOUBLE_EQ(sample.probability(0), 0.0);
  // u on a grid of 9,000 points: the alias table gives each word its share of the grid,
  // up to one grid step per bucket; a zero-count row is never drawn.
  std::vector<int> drawn(3, 0);
  for (int k = 0; k < 9000; ++k) ++drawn[static_cast<std::size_t>(sample((k + 0.5) / 9000.0))];
  EXPECT_EQ(drawn[0], 0);
  EXPECT_NEAR(drawn[1], 8000, 3);
  EXPECT_NEAR(drawn[2], 1000, 3);
  // By hand (Vose): scaled {0, 8/3, 1/3}; bucket 0 gives all to word 1, bucket 2 keeps word 2
  // with 1/3 and gives word 1 the rest, bucket 1 is all word 1.
  EXPECT_EQ(sample(0.1), 1);
  EXPECT_EQ(sample(0.5), 1);
  EXPECT_EQ(sample(2.0 / 3.0 + 0.01), 2);
  EXPECT_EQ(sample(2.0 / 3.0 + 0.12), 1);
}

TEST(Training, SubsamplingKeepsSqrtTOverF) {
  training::Vocabulary vocab;
  vocab.words = {"<unk>", "a", "b"};
  vocab.counts = {0, 16, 1};  // f = 16/17 and 1/17
  const std::vector<double> keep = training::keep_probabilities(vocab, 1.0 / 17.0);
  EXPECT_NEAR(keep[1], 0.25, 1e-15);  // sqrt((1/17) / (16/17))
  EXPECT_EQ(keep[2], 1.0);            // sqrt(1) = 1: rare words are always kept
}

TEST(Training, ARunThatTrainsNoStepFails) {
  // Sentences of one word give no (centre, context) pair: the tables would be the init,
  // returned as if trained.
  training::Corpus corpus;
  corpus.words = {"cat", "dog", "cat", "dog"};
  corpus.sentence_starts = {0, 1, 2, 3, 4};
  const training::Vocabulary vocab = training::build_vocabulary(corpus, 1);
  const std::vector<std::int32_t> ids = training::encode(corpus, vocab);
  training::TrainOptions o;
  o.d_model = 4, o.epochs = 2, o.subsample = 0;
  EXPECT_INPUT_ERROR(training::train(ids, corpus.sentence_starts, vocab, o),
                     "trained no step: no sentence of the 4 words gave a (centre, context) pair");
  o.init_scale = 1e40;  // float32 overflows: wte would start as inf
  EXPECT_INPUT_ERROR(training::train(ids, corpus.sentence_starts, vocab, o),
                     "init scale 1e+40 overflows float32");
}

TEST(Vocabulary, TextReadBackIsTheSame) {
  const training::Vocabulary v = training::parse_vocabulary("<unk> 3\ncat 2\ndog 0\n", "v");
  EXPECT_EQ(training::vocabulary_text(v), "<unk> 3\ncat 2\ndog 0\n");
  EXPECT_INPUT_ERROR(training::parse_vocabulary("<unk> 3\ncat 2\ncat 1\n", "v"),
                     "v:3: the word 'cat' appears twice");
  EXPECT_INPUT_ERROR(training::parse_vocabulary("<unk> 3\ncat\n", "v"),
                     "v:2: expected 'word count', got 'cat'");
  EXPECT_INPUT_ERROR(training::parse_vocabulary("<unk> 3\n", "v"),
                     "v: a vocabulary of fewer than 2 words");
}

// train --tokens bpe's corpus, worked by hand with three merges: 256 = (' ', c), 257 = (256, a),
// 258 = (257, t), so " cat" is one token and V = 256 + 3 + 1 = 260.
TEST(TokenCorpus, LinesBecomeSentencesOfTokenIds) {
  const tokenizer::Tokenizer tok{{{' ', 'c'}, {256, 'a'}, {257, 't'}}};
  // chunks: "the" " cat" "\n\n" " a" " cat" "\n": the '\n' tokens end sentences, the empty
  // line between them leaves no sentence.
  const training::TokenCorpus corpus = training::encode_lines(tok, "the cat\n\n a cat\n");
  EXPECT_EQ(corpus.ids, (std::vector<std::int32_t>{'t', 'h', 'e', 258, ' ', 'a', 258}));
  EXPECT_EQ(corpus.sentence_starts, (std::vector<std::int64_t>{0, 4, 7}));
  EXPECT_EQ(training::encode_lines(tok, "no line end").sentence_starts,
            (std::vector<std::int64_t>{0, 11}));  // no merge applies: a token a byte
  EXPECT_INPUT_ERROR(training::encode_lines(tok, "\n\n\n"), "no token outside its line ends");

  const training::Vocabulary vocab = training::token_vocabulary(tok, corpus.ids);
  ASSERT_EQ(vocab.size(), 260);
  EXPECT_EQ(vocab.words[258], "\\x20cat");  // the name the merges file gives its bytes
  EXPECT_EQ(vocab.words['t'], "t");
  EXPECT_EQ(vocab.words['\n'], "\\x0a");
  EXPECT_EQ(vocab.words[259], "<|endoftext|>");
  EXPECT_EQ(vocab.counts[258], 2);
  EXPECT_EQ(vocab.counts['t'], 1);
  EXPECT_EQ(vocab.counts['\n'], 0);  // line ends are not trained on
  EXPECT_EQ(training::word_token(vocab, "cat"), std::optional<std::int32_t>(258));
  EXPECT_EQ(training::word_token(vocab, "a"), std::nullopt);  // " a" is two tokens
  EXPECT_INPUT_ERROR(training::token_vocabulary(tok, std::vector<std::int32_t>{260}),
                     "token id 260 is outside [0, 260)");
}

// A runner whose scores "run off to inf" at step fail_at: what train() says about it.
int fail_at = 0;
class FailingRunner final : public training::StepRunner {
 public:
  double sgns_step(TokenIds, TokenIdBatch, float) override {
    if (++steps_ == fail_at) throw InputError("scores[3] is inf: a finite value is required");
    return 1.0;
  }
  void copy_to(FloatView, FloatView) override {}

 private:
  int steps_ = 0;
};
std::unique_ptr<training::StepRunner> failing_runner(ConstFloatView, ConstFloatView, std::int64_t,
                                                     std::int64_t) {
  return std::make_unique<FailingRunner>();
}

std::string divergence_after(int steps) {  // 200 sentences of 5 words, 1 epoch
  training::Corpus corpus;
  corpus.sentence_starts = {0};
  for (int s = 0; s < 200; ++s) {
    training::append_words("the cat sat on mats", corpus.words);
    corpus.sentence_starts.push_back(static_cast<std::int64_t>(corpus.words.size()));
  }
  const training::Vocabulary vocab = training::build_vocabulary(corpus, 1);
  training::TrainOptions o;
  o.d_model = 4, o.epochs = 1, o.subsample = 0.0;
  fail_at = steps;
  try {
    training::train(training::encode(corpus, vocab), corpus.sentence_starts, vocab, o, {},
                    failing_runner);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Training, EarlyDivergenceNamesTheStepBeforeTheSettings) {
  // Step 2 of 200: 5 of 1,000 words (0.5%), the first 1% of the run.
  const std::string early = divergence_after(2);
  EXPECT_THAT(early, ::testing::StartsWith(
                         "training diverged in epoch 1, 5 words into the run (0.5%), at lr "));
  EXPECT_THAT(early, ::testing::HasSubstr("scores[3] is inf"));
  const auto step = early.find("the step itself is the likely cause: check that sgns_step clears");
  ASSERT_NE(step, std::string::npos) << early;
  EXPECT_LT(step, early.find("--lr")) << early;
  // Step 100: half-way, the settings alone.
  const std::string late = divergence_after(100);
  EXPECT_THAT(late, ::testing::HasSubstr("495 words into the run (50%)"));
  EXPECT_THAT(late, ::testing::HasSubstr("; try a smaller --lr or --init-scale"));
  EXPECT_THAT(late, ::testing::Not(::testing::HasSubstr("the step itself")));
}

}  // namespace
