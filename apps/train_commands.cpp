#include "apps/train_commands.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cmath>
#include <cstdio>
#include <map>

#include "apps/backend.hpp"
#include "apps/file_name_option.hpp"
#include "apps/int_option.hpp"
#include "apps/output_files.hpp"
#include "apps/printable.hpp"
#include "apps/safetensors.hpp"
#include "apps/standard_streams.hpp"
#include "apps/svg.hpp"
#include "core/errors.hpp"
#include "training/corpus.hpp"
#include "training/similarity.hpp"

namespace andrea::cli {

namespace {

using namespace andrea::training;

const std::vector<std::string> kSourceWords = {"cat", "dog", "pet", "tuesday", "xylophone"};

constexpr std::string_view kWeightsSuffix = ".safetensors";

// Caps on what a run prints or draws: a matrix of at most kMaxWords x kMaxWords cosines
// (similar, its --svg too), a list of at most kMaxNeighbors words (neighbors -k).
constexpr std::int64_t kMaxWords = 64, kMaxNeighbors = 1000;

// embeddings.safetensors (wte and wout) -> embeddings.vocab.txt, the words of its rows
std::string vocabulary_file(const std::string& weights) {
  if (!weights.ends_with(kWeightsSuffix)) {
    throw InputError(fmt::format("the weights file '{}' must end in {}", weights, kWeightsSuffix));
  }
  return weights.substr(0, weights.size() - kWeightsSuffix.size()) + ".vocab.txt";
}

std::string clock(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

void print_progress(const Progress& p, std::int64_t epochs) {
  const double share = static_cast<double>(p.words_done) / static_cast<double>(p.words_total);
  const double speed = p.seconds > 0 ? static_cast<double>(p.words_done) / p.seconds : 0.0;
  const int filled = static_cast<int>(share * 30);
  fmt::print(stderr,
             "\repoch {}/{} [{:<30}] {:3.0f}%  {:7.0f} words/s  loss {:.4f}  lr {:.5f}  ETA {}  ",
             p.epoch + 1, epochs, std::string(static_cast<std::size_t>(filled), '#'), 100 * share,
             speed, p.loss, p.lr,
             clock(speed > 0 ? static_cast<double>(p.words_total - p.words_done) / speed : 0));
  std::fflush(stderr);
}

void print_matrix(const Matrix& cos, const std::vector<std::string>& words) {
  cli::print("{:>12}", "");
  for (const std::string& w : words) cli::print(" {:>10}", printable(w.substr(0, 10)));
  cli::print("\n");
  for (std::size_t i = 0; i < words.size(); ++i) {
    cli::print("{:>12}", printable(words[i].substr(0, 12)));
    for (std::size_t j = 0; j < words.size(); ++j) {
      cli::print(" {:>+10.3f}", cos(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j)));
    }
    cli::print("\n");
  }
}

void print_neighbors(ConstFloatView table, const Vocabulary& vocab, const std::string& word,
                     std::int64_t k) {
  cli::print("nearest {} words to '{}' by cosine:\n", k, printable(word));
  for (const auto& [w, c] : nearest(table, vocab, word, k)) {
    cli::print("  {:<16} {:+.3f}   ({} times in the corpus)\n", printable(w), c,
               vocab.counts[static_cast<std::size_t>(vocab.at(w))]);
  }
}

void print_pairs(ConstFloatView table, const Vocabulary& vocab, const std::string& path) {
  const std::vector<WordPair> pairs = read_pairs(path);
  const PairReport r = evaluate_pairs(table, vocab, pairs);
  cli::print(
      "pairs ({}): {} related, mean cosine {:+.3f}; {} unrelated, mean {:+.3f}, median {:+.3f}\n",
      printable(path), r.related, r.mean_related, r.unrelated, r.mean_unrelated,
      r.median_unrelated);
  cli::print("  related pairs above the median unrelated pair: {:.1f}%\n",
             100 * r.related_above_median);
}

struct Weights {
  Matrix table;
  Vocabulary vocab;
};

// The input table wte of a file written by train (safetensors, tensor "wte" (V, d_model)).
Matrix read_wte(const std::string& path) {
  const Safetensors file = read_safetensors(path, {"wte"});
  const Tensor* wte = file.find("wte");
  if (wte == nullptr) {
    throw InputError(fmt::format("the weights file {} holds no tensor 'wte' (it holds: {})", path,
                                 fmt::join(file.names, ", ")));
  }
  if (wte->shape.size() != 2 || wte->shape[0] < 1 || wte->shape[1] < 1) {
    throw InputError(fmt::format("tensor 'wte' of {} has shape [{}], expected [V, d_model]", path,
                                 fmt::join(wte->shape, ", ")));
  }
  Matrix table(wte->shape[0], wte->shape[1]);
  std::copy(wte->values.begin(), wte->values.end(), table.view().data());
  return table;
}

Weights load(const std::string& path) {
  const std::string vocab_file = vocabulary_file(path);
  Weights w{read_wte(path), read_vocabulary(vocab_file)};
  if (w.table.rows() != w.vocab.size()) {
    throw InputError(fmt::format("the weights {} have {} rows but the vocabulary {} has {} words",
                                 path, w.table.rows(), vocab_file, w.vocab.size()));
  }
  for (std::int64_t r = 0; r < w.table.rows();
       ++r) {  // checked where it is read: file, tensor, row, word
    for (const float x : w.table.row(r)) {
      if (!std::isfinite(x)) {
        throw InputError(fmt::format(
            "{}: tensor 'wte' row {} (the word '{}') holds {}: every value must be finite", path, r,
            w.vocab.words[static_cast<std::size_t>(r)], x));
      }
    }
  }
  return w;
}

// The table training starts from: the course's init for W's shape, seed `seed`.
void reset_to_init(Matrix& table, std::uint64_t seed) {
  for (std::int64_t e = 0; e < table.view().size(); ++e) {
    table.view().data()[e] = init_value(seed, Table::token, e, table.cols());
  }
}

}  // namespace

TrainingCommands::TrainingCommands(CLI::App& app) {
  app.require_subcommand(0, 1);  // one command a run: a word after it is a word, never a command
  train_ = app.add_subcommand(
      "train", "lesson 9: train wte with skip-gram and negative sampling on WordNet");
  add_file_option(*train_, "--corpus", corpus_,
                  "a WordNet dict folder or a text file, one sentence a line");
  add_int_option<std::int64_t>(*train_, "--min-count", min_count_, 1, INT64_MAX,
                               "words seen fewer times become <unk>");
  add_int_option<std::int64_t>(*train_, "--d-model", options_.d_model, 1, max_d_model,
                               "width of the tables");
  add_int_option<std::int64_t>(*train_, "--window", options_.window, 1, max_window,
                               "context words on each side, at most");
  add_int_option<std::int64_t>(*train_, "--negatives", options_.negatives, 1, max_negatives,
                               "negatives per pair");
  add_int_option<std::int64_t>(*train_, "--epochs", options_.epochs, 1, max_epochs,
                               "passes over the corpus");
  // Real numbers that train: never 0 where 0 cannot train, never a subnormal (parse_real).
  add_real_option(*train_, "--lr", options_.lr, 1e-6, 10.0,
                  "starting learning rate, decays linearly to 0");
  add_real_option(*train_, "--subsample", options_.subsample, 0.0, 1.0,
                  "t of frequent-word subsampling, 0: off");
  add_real_option(*train_, "--init-scale", options_.init_scale, 1e-6, 1e3,
                  "wte starts as this times the course's init");
  add_int_option<std::uint64_t>(*train_, "--seed", options_.seed, 0, UINT64_MAX,
                                "Philox seed of the init and every draw");
  add_file_option(
      *train_, "--out", out_,
      "wte and wout to this .safetensors file, the vocabulary to *.vocab.txt beside it");
  add_file_option(*train_, "--pairs", pairs_,
                  "a pair list (word TAB word TAB related|unrelated) to score at the end");
  train_->add_flag("--quiet", quiet_, "no progress bar");
  train_
      ->add_option("--backend", backend_,
                   "cpu (the C++ reference, whose numbers the lesson quotes), cudasim (the "
                   "CUDA kernels on the CPU) or gpu (GPU, tables in device memory)")
      ->capture_default_str();
  CLI::Option* dump = add_file_option(
      *train_, "--dump-corpus", dump_,
      "write the corpus as trained on (words, <unk>), one sentence a line, and stop (with "
      "--corpus and --min-count only: nothing is trained)");
  for (CLI::Option* option : train_->get_options()) {  // the training options have no effect
    const std::string name = option->get_name();
    if (option != dump && name != "--corpus" && name != "--min-count" && name != "--help") {
      dump->excludes(option);
    }
  }

  similar_ = app.add_subcommand("similar", "cosine similarity matrix of words in trained weights");
  add_file_option(*similar_, "--weights", weights_,
                  "the .safetensors file written by train (its .vocab.txt beside it)")
      ->required();
  similar_->add_option("words", words_, fmt::format("words, at most {}", kMaxWords))
      ->default_str(fmt::format("{}", fmt::join(kSourceWords, " ")));
  add_file_option(*similar_, "--pairs", pairs_, "also score this pair list");
  add_file_option(*similar_, "--svg", svg_, "also draw the matrix as a heatmap in this .svg file");
  similar_->add_flag("--centre", centre_,
                     "subtract the mean row first (removes the direction all rows share)");
  init_seed_option_ = add_int_option<std::uint64_t>(
      *similar_, "--init-seed", init_seed_, 0, UINT64_MAX,
      "use the untrained table instead: the init W started from, with this seed");
  init_seed_option_->default_str("");

  neighbors_ = app.add_subcommand("neighbors", "the nearest words by cosine in trained weights");
  add_file_option(*neighbors_, "--weights", weights_,
                  "the .safetensors file written by train (its .vocab.txt beside it)")
      ->required();
  neighbors_->add_option("word", words_, "the word")->required()->expected(1);
  add_int_option<std::int64_t>(
      *neighbors_, "-k", k_, 1, kMaxNeighbors,
      fmt::format("how many, at most {} (and at most the vocabulary's other words)",
                  kMaxNeighbors));
  neighbors_->add_flag("--centre", centre_,
                       "subtract the mean row first (removes the direction all rows share)");
}

bool TrainingCommands::chosen() const {
  return train_->parsed() || similar_->parsed() || neighbors_->parsed();
}

std::string_view TrainingCommands::out_of_memory_hint() const {
  return train_->parsed() ? "a smaller train --d-model, or a smaller corpus or --min-count above 1?"
                          : "a smaller --weights file?";
}

int TrainingCommands::run() const {
  if (train_->parsed()) return run_train();
  if (similar_->parsed()) return run_similar();
  return run_neighbors();
}

int TrainingCommands::run_train() const {
  validate(options_);
  const std::vector<Backend> all = backends();  // an unusable backend fails before any work
  const Backend* backend = dump_.empty() ? &pick_backend(all, backend_, true) : nullptr;
  const std::string vocab_file = vocabulary_file(out_);
  std::vector<NamedPath> inputs = {{"--corpus", corpus_}};
  if (!pairs_.empty()) inputs.push_back({"--pairs", pairs_});
  std::vector<NamedPath> outputs;
  if (dump_.empty()) {
    outputs.push_back({"--out", out_});
    outputs.push_back({"--out's vocabulary", vocab_file});
  } else {
    outputs.push_back({"--dump-corpus", dump_});
  }
  check_outputs(outputs, inputs);

  const Corpus corpus = read_corpus(corpus_);
  const Vocabulary vocab = build_vocabulary(corpus, min_count_);
  const std::vector<std::int32_t> ids = encode(corpus, vocab);
  if (!pairs_.empty())
    validate_pairs(read_pairs(pairs_), vocab);  // a bad list fails now, not after training
  if (!dump_.empty()) {  // the same text for another trainer (bench/training_vs_fasttext.sh)
    write_file(dump_, corpus_text(corpus, vocab, ids));
    return 0;
  }
  print_setup(corpus, vocab, *backend);
  double seconds = 0.0;
  const Tables tables = train(
      ids, corpus.sentence_starts, vocab, options_,
      [&](const Progress& p) {
        seconds = p.seconds;
        if (!quiet_) print_progress(p, options_.epochs);
      },
      backend->sgns_runner);
  if (!quiet_) fmt::print(stderr, "\n");
  cli::print("trained  {} words in {:.1f} s: {:.0f} words/s ({})\n",
             static_cast<std::int64_t>(ids.size()) * options_.epochs, seconds,
             static_cast<double>(ids.size() * static_cast<std::size_t>(options_.epochs)) / seconds,
             backend->name == "cpu" ? std::string_view("one thread") : backend->name);

  // Both files or neither (a table that is not finite is refused before either is written).
  std::vector<FileBytes> files(2);
  files[0] = {vocab_file, vocabulary_text(vocab)};
  files[1] = {out_, safetensors_bytes({{"wte", tables.wte}, {"wout", tables.wout}},
                                      metadata(corpus, vocab))};
  write_all(files);
  cli::print("wrote    {} (wte and wout, float32 ({}, {}), safetensors), {}\n\n", printable(out_),
             vocab.size(), options_.d_model, printable(vocab_file));
  print_results(tables, vocab);
  return 0;
}

std::string TrainingCommands::corpus_text(const Corpus& corpus, const Vocabulary& vocab,
                                          std::span<const std::int32_t> ids) const {
  std::string out;
  for (std::int64_t s = 0; s < corpus.sentences(); ++s) {
    const auto [begin, end] = std::pair(corpus.sentence_starts[static_cast<std::size_t>(s)],
                                        corpus.sentence_starts[static_cast<std::size_t>(s) + 1]);
    for (std::int64_t i = begin; i < end; ++i) {
      out += vocab.words[static_cast<std::size_t>(ids[static_cast<std::size_t>(i)])];
      out += i + 1 < end ? ' ' : '\n';
    }
  }
  return out;
}

void TrainingCommands::print_setup(const Corpus& corpus, const Vocabulary& vocab,
                                   const Backend& backend) const {
  cli::print("corpus   {}: {} words in {} sentences (words: lower-case runs of a-z)\n",
             printable(corpus.source), corpus.words.size(), corpus.sentences());
  cli::print(
      "vocab    V = {} rows: <unk> (the {} words seen fewer than {} times) + words seen >= {} "
      "times\n",
      vocab.size(), vocab.counts[0], min_count_, min_count_);
  cli::print(
      "model    skip-gram, negative sampling: d_model {}, window {}, {} negatives, {} epochs, "
      "lr {} linear to 0, subsample {}, seed {}\n",
      options_.d_model, options_.window, options_.negatives, options_.epochs, options_.lr,
      options_.subsample, options_.seed);
  cli::print("backend  {}: {}\n", backend.name, backend.description);
  flush_stdout();  // shown before the long training
}

std::map<std::string, std::string> TrainingCommands::metadata(const Corpus& corpus,
                                                              const Vocabulary& vocab) const {
  return {{"format", "andrea-embeddings lesson 9: skip-gram with negative sampling"},
          {"corpus", corpus.source},
          {"vocab_size", std::to_string(vocab.size())},
          {"d_model", std::to_string(options_.d_model)},
          {"window", std::to_string(options_.window)},
          {"negatives", std::to_string(options_.negatives)},
          {"epochs", std::to_string(options_.epochs)},
          {"lr", fmt::format("{}", options_.lr)},
          {"subsample", fmt::format("{}", options_.subsample)},
          {"init_scale", fmt::format("{}", options_.init_scale)},
          {"min_count", std::to_string(min_count_)},
          {"seed", std::to_string(options_.seed)}};
}

void TrainingCommands::print_results(const Tables& tables, const Vocabulary& vocab) const {
  std::vector<std::string> shown;
  for (const std::string& w : kSourceWords) {
    if (vocab.find(w)) shown.push_back(w);
  }
  const Matrix wte_centred = centred(tables.wte);
  for (const bool centre : {false, true}) {
    const ConstFloatView table = centre ? wte_centred.view() : tables.wte.view();
    cli::print("{}\n", centre ? "--- centred: the mean row subtracted first (similar --centre)"
                              : "--- raw rows of wte (similar)");
    if (shown.size() >= 2) print_matrix(word_cosines(table, vocab, shown), shown);
    if (vocab.find("cat")) print_neighbors(table, vocab, "cat", 10);
    if (!pairs_.empty()) print_pairs(table, vocab, pairs_);
  }
}

int TrainingCommands::run_similar() const {
  const std::vector<std::string> words = words_.empty() ? kSourceWords : words_;
  if (static_cast<std::int64_t>(words.size()) > kMaxWords) {
    throw InputError(fmt::format("{} words: similar compares at most {} (a matrix of {} cosines)",
                                 words.size(), kMaxWords, kMaxWords * kMaxWords));
  }
  Weights w = load(weights_);
  for (const std::string& word : words)
    w.vocab.at(word);  // unknown words: an error before any output
  if (!pairs_.empty()) validate_pairs(read_pairs(pairs_), w.vocab);
  if (!svg_.empty()) {
    std::vector<NamedPath> inputs = {{"--weights", weights_},
                                     {"--weights' vocabulary", vocabulary_file(weights_)}};
    if (!pairs_.empty()) inputs.push_back({"--pairs", pairs_});
    check_outputs({{"--svg", svg_}}, inputs);
  }
  const bool init = init_seed_option_->count() > 0;
  if (init) reset_to_init(w.table, init_seed_);
  if (centre_) w.table = centred(w.table);
  const Matrix cos = word_cosines(w.table, w.vocab, words);
  print_matrix(cos, words);
  if (!pairs_.empty()) print_pairs(w.table, w.vocab, pairs_);
  if (!svg_.empty()) {
    const std::string title = fmt::format(
        "cosine similarity, {}{}",
        init ? fmt::format("before training (init, seed {})", init_seed_) : "after training",
        centre_ ? ", centred" : "");
    write_file(svg_, svg::heatmap(title, words, cos));  // apps/svg.hpp
  }
  return 0;
}

int TrainingCommands::run_neighbors() const {
  Weights w = load(weights_);
  if (centre_) w.table = centred(w.table);
  const std::int64_t others = w.vocab.size() - 2;  // neither the word itself nor <unk>
  if (k_ > others) {
    throw InputError(
        fmt::format("-k {} is more than the {} other words of the vocabulary {} (<unk> aside)", k_,
                    others, vocabulary_file(weights_)));
  }
  print_neighbors(w.table, w.vocab, words_.front(), k_);
  return 0;
}

}  // namespace andrea::cli
