#include "apps/train_commands.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
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
#include "tokenizer/bpe.hpp"
#include "training/corpus.hpp"
#include "training/similarity.hpp"
#include "training/token_corpus.hpp"

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

void print_progress(const Progress& p, std::int64_t epochs, std::string_view unit) {
  const double share = static_cast<double>(p.words_done) / static_cast<double>(p.words_total);
  const double speed = p.seconds > 0 ? static_cast<double>(p.words_done) / p.seconds : 0.0;
  const int filled = static_cast<int>(share * 30);
  fmt::print(stderr,
             "\repoch {}/{} [{:<30}] {:3.0f}%  {:7.0f} {}/s  loss {:.4f}  lr {:.5f}  ETA {}  ",
             p.epoch + 1, epochs, std::string(static_cast<std::size_t>(filled), '#'), 100 * share,
             speed, unit, p.loss, p.lr,
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

void print_pair_report(const PairReport& r, const std::string& path) {
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
  bool bpe = false;  ///< trained with --tokens bpe: rows are token ids, "cat" means " cat"
};

// The row `word` names: the word itself, or with `bpe` the token " word" (the word inside a
// sentence) when that is a single token. std::nullopt when neither is a row.
std::optional<std::string> row_of(const Vocabulary& vocab, const std::string& word, bool bpe) {
  if (bpe) {
    if (const std::optional<std::int32_t> id = word_token(vocab, word)) {
      return vocab.words[static_cast<std::size_t>(*id)];
    }
  }
  return vocab.find(word) ? std::optional(word) : std::nullopt;
}

// The input table wte of a file written by train (safetensors, tensor "wte" (V, d_model)).
Matrix read_wte(const Safetensors& file, const std::string& path) {
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
  const Safetensors file = read_safetensors(path, {"wte"});
  const auto tokens = file.metadata.find("tokens");
  Weights w{read_wte(file, path), read_vocabulary(vocab_file),
            tokens != file.metadata.end() && tokens->second == "bpe"};
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
  add_train_options();

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

void TrainingCommands::add_train_options() {
  add_file_option(*train_, "--corpus", corpus_,
                  "a WordNet dict folder or a text file, one sentence a line");
  train_
      ->add_option("--tokens", tokens_,
                   "words (lesson 9: a row per word) or bpe (ANDREA-120M's own table: a row per "
                   "token id of the tokenizer, V = 8,449, d_model 768 unless --d-model)")
      ->check(CLI::IsMember({"words", "bpe"}))
      ->capture_default_str();
  merges_ = ANDREA_DEFAULT_MERGES;
  merges_option_ = add_file_option(*train_, "--merges-file", merges_,
                                   "with --tokens bpe: the tokenizer's merges file");
  min_count_option_ = add_int_option<std::int64_t>(*train_, "--min-count", min_count_, 1, INT64_MAX,
                                                   "words seen fewer times become <unk>");
  d_model_option_ = add_int_option<std::int64_t>(*train_, "--d-model", options_.d_model, 1,
                                                 max_d_model, "width of the tables");
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
      "write the corpus as trained on (words, <unk>; or the tokens' names), one sentence a line, "
      "and stop (with --corpus, --min-count, --tokens and --merges-file only: nothing is "
      "trained)");
  for (CLI::Option* option : train_->get_options()) {  // the training options have no effect
    const std::string name = option->get_name();
    if (option != dump && name != "--corpus" && name != "--min-count" && name != "--tokens" &&
        name != "--merges-file" && name != "--help") {
      dump->excludes(option);
    }
  }
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
  const TrainOptions options = train_options();
  validate(options);
  const std::vector<Backend> all = backends();  // an unusable backend fails before any work
  const Backend* backend = dump_.empty() ? &pick_backend(all, backend_, true) : nullptr;
  const std::string vocab_file = vocabulary_file(out_);
  std::vector<NamedPath> inputs = {{"--corpus", corpus_}};
  if (bpe()) inputs.push_back({"--merges-file", merges_});
  if (!pairs_.empty()) inputs.push_back({"--pairs", pairs_});
  std::vector<NamedPath> outputs = {{"--dump-corpus", dump_}};
  if (dump_.empty()) outputs = {{"--out", out_}, {"--out's vocabulary", vocab_file}};
  check_outputs(outputs, inputs);

  const TrainingText text = bpe() ? read_tokens() : read_words();
  if (!pairs_.empty()) pairs_as_rows(text.vocab, bpe());  // a bad list fails now, not after training
  if (!dump_.empty()) {  // the same text for another trainer (bench/training_vs_fasttext.sh)
    write_file(dump_, corpus_text(text));
    return 0;
  }
  print_setup(text, *backend);
  double seconds = 0.0;
  const Tables tables = train(
      text.ids, text.sentence_starts, text.vocab, options,
      [&](const Progress& p) {
        seconds = p.seconds;
        if (!quiet_) print_progress(p, options.epochs, bpe() ? "tokens" : "words");
      },
      backend->sgns_runner);
  if (!quiet_) fmt::print(stderr, "\n");
  const double done = static_cast<double>(text.ids.size()) * static_cast<double>(options.epochs);
  const std::string_view unit = bpe() ? "tokens" : "words";
  cli::print("trained  {} {} in {:.1f} s: {:.0f} {}/s ({})\n", static_cast<std::int64_t>(done),
             unit, seconds, done / seconds, unit,
             backend->name == "cpu" ? std::string_view("one thread") : backend->name);

  // Both files or neither (a table that is not finite is refused before either is written).
  std::vector<FileBytes> files(2);
  files[0] = {vocab_file, vocabulary_text(text.vocab)};
  files[1] = {out_, safetensors_bytes({{"wte", tables.wte}, {"wout", tables.wout}}, metadata(text))};
  write_all(files);
  cli::print("wrote    {} (wte and wout, float32 ({}, {}), safetensors), {}\n\n", printable(out_),
             text.vocab.size(), options.d_model, printable(vocab_file));
  print_results(tables, text.vocab);
  return 0;
}

TrainOptions TrainingCommands::train_options() const {
  TrainOptions options = options_;
  if (bpe() && d_model_option_->count() == 0) options.d_model = 768;  // ANDREA-120M's
  return options;
}

TrainingCommands::TrainingText TrainingCommands::read_words() const {
  if (merges_option_->count() > 0) {
    throw InputError("--merges-file is for --tokens bpe: --tokens words needs no tokenizer");
  }
  const Corpus corpus = read_corpus(corpus_);
  TrainingText text{{}, corpus.sentence_starts, build_vocabulary(corpus, min_count_),
                    corpus.source, ""};
  text.ids = encode(corpus, text.vocab);
  text.setup = fmt::format(
      "corpus   {}: {} words in {} sentences (words: lower-case runs of a-z)\n"
      "vocab    V = {} rows: <unk> (the {} words seen fewer than {} times) + words seen >= {} "
      "times\n",
      printable(corpus.source), corpus.words.size(), corpus.sentences(), text.vocab.size(),
      text.vocab.counts[0], min_count_, min_count_);
  return text;
}

TrainingCommands::TrainingText TrainingCommands::read_tokens() const {
  if (min_count_option_->count() > 0) {
    throw InputError("--min-count is for --tokens words: --tokens bpe has a row for each of the "
                     "tokenizer's token ids, seen or not");
  }
  std::error_code ec;
  const bool wordnet = std::filesystem::is_directory(corpus_, ec);
  const std::string bytes =
      wordnet ? read_wordnet_text(corpus_) : tokenizer::read_corpus_bytes(corpus_);
  const tokenizer::Tokenizer tok = tokenizer::read_merges(merges_);
  TokenCorpus corpus = encode_lines(tok, bytes);
  TrainingText text{std::move(corpus.ids), std::move(corpus.sentence_starts), {}, corpus_, ""};
  text.vocab = token_vocabulary(tok, text.ids);
  const auto unseen = std::count(text.vocab.counts.begin(), text.vocab.counts.end(), 0);
  text.setup = fmt::format(
      "corpus   {}: {} tokens in {} sentences ({}, one a line; tokenizer {})\n"
      "vocab    V = {} rows: one per token id ({} of them not in the corpus: they keep their "
      "init)\n",
      printable(corpus_), text.ids.size(), text.sentence_starts.size() - 1,
      wordnet ? "WordNet's synsets" : "the file's lines", printable(merges_), text.vocab.size(),
      unseen);
  return text;
}

std::string TrainingCommands::corpus_text(const TrainingText& text) const {
  std::string out;
  for (std::size_t s = 0; s + 1 < text.sentence_starts.size(); ++s) {
    const auto [begin, end] = std::pair(text.sentence_starts[s], text.sentence_starts[s + 1]);
    for (std::int64_t i = begin; i < end; ++i) {
      out += text.vocab.words[static_cast<std::size_t>(text.ids[static_cast<std::size_t>(i)])];
      out += i + 1 < end ? ' ' : '\n';
    }
  }
  return out;
}

void TrainingCommands::print_setup(const TrainingText& text, const Backend& backend) const {
  const TrainOptions o = train_options();
  cli::print("{}", text.setup);
  cli::print(
      "model    skip-gram, negative sampling: d_model {}, window {}, {} negatives, {} epochs, "
      "lr {} linear to 0, subsample {}, seed {}\n",
      o.d_model, o.window, o.negatives, o.epochs, o.lr, o.subsample, o.seed);
  cli::print("backend  {}: {}\n", backend.name, backend.description);
  flush_stdout();  // shown before the long training
}

std::map<std::string, std::string> TrainingCommands::metadata(const TrainingText& text) const {
  const TrainOptions o = train_options();
  std::map<std::string, std::string> m = {
      {"format", "andrea-embeddings lesson 9: skip-gram with negative sampling"},
      {"corpus", text.source},
      {"tokens", tokens_},
      {"vocab_size", std::to_string(text.vocab.size())},
      {"d_model", std::to_string(o.d_model)},
      {"window", std::to_string(o.window)},
      {"negatives", std::to_string(o.negatives)},
      {"epochs", std::to_string(o.epochs)},
      {"lr", fmt::format("{}", o.lr)},
      {"subsample", fmt::format("{}", o.subsample)},
      {"init_scale", fmt::format("{}", o.init_scale)},
      {"seed", std::to_string(o.seed)}};
  if (bpe()) {
    m["merges_file"] = merges_;
  } else {
    m["min_count"] = std::to_string(min_count_);
  }
  return m;
}

// The --pairs list, each word as the row it names; with --tokens bpe, only the pairs whose two
// words are single tokens. Throws as validate_pairs.
std::vector<WordPair> TrainingCommands::pairs_as_rows(const Vocabulary& vocab, bool bpe) const {
  std::vector<WordPair> pairs = read_pairs(pairs_);
  if (bpe) {
    std::vector<WordPair> kept;
    for (const WordPair& p : pairs) {
      const std::optional<std::string> a = row_of(vocab, p.a, true), b = row_of(vocab, p.b, true);
      if (a && b) kept.push_back({*a, *b, p.related});
    }
    pairs = std::move(kept);
  }
  validate_pairs(pairs, vocab);
  return pairs;
}

void TrainingCommands::print_pairs(ConstFloatView table, const Vocabulary& vocab, bool bpe) const {
  const std::vector<WordPair> pairs = pairs_as_rows(vocab, bpe);
  if (bpe) {
    cli::print("pairs whose two words are single tokens (\" word\"): {} of the list's {}\n",
               pairs.size(), read_pairs(pairs_).size());
  }
  print_pair_report(evaluate_pairs(table, vocab, pairs), pairs_);
}

void TrainingCommands::print_results(const Tables& tables, const Vocabulary& vocab) const {
  std::vector<std::string> shown, rows;
  for (const std::string& w : kSourceWords) {
    if (const std::optional<std::string> row = row_of(vocab, w, bpe())) {
      shown.push_back(w);
      rows.push_back(*row);
    }
  }
  const std::optional<std::string> cat = row_of(vocab, "cat", bpe());
  const Matrix wte_centred = centred(tables.wte);
  for (const bool centre : {false, true}) {
    const ConstFloatView table = centre ? wte_centred.view() : tables.wte.view();
    cli::print("{}\n", centre ? "--- centred: the mean row subtracted first (similar --centre)"
                              : "--- raw rows of wte (similar)");
    if (rows.size() >= 2) print_matrix(word_cosines(table, vocab, rows), shown);
    if (cat) print_neighbors(table, vocab, *cat, 10);
    if (!pairs_.empty()) print_pairs(table, vocab, bpe());
  }
}

int TrainingCommands::run_similar() const {
  const std::vector<std::string> words = words_.empty() ? kSourceWords : words_;
  if (static_cast<std::int64_t>(words.size()) > kMaxWords) {
    throw InputError(fmt::format("{} words: similar compares at most {} (a matrix of {} cosines)",
                                 words.size(), kMaxWords, kMaxWords * kMaxWords));
  }
  Weights w = load(weights_);
  std::vector<std::string> rows;  // unknown words: an error before any output
  for (const std::string& word : words) rows.push_back(row_of(w.vocab, word, w.bpe).value_or(word));
  for (const std::string& row : rows) w.vocab.at(row);
  if (!pairs_.empty()) pairs_as_rows(w.vocab, w.bpe);
  if (!svg_.empty()) {
    std::vector<NamedPath> inputs = {{"--weights", weights_},
                                     {"--weights' vocabulary", vocabulary_file(weights_)}};
    if (!pairs_.empty()) inputs.push_back({"--pairs", pairs_});
    check_outputs({{"--svg", svg_}}, inputs);
  }
  const bool init = init_seed_option_->count() > 0;
  if (init) reset_to_init(w.table, init_seed_);
  if (centre_) w.table = centred(w.table);
  const Matrix cos = word_cosines(w.table, w.vocab, rows);
  print_matrix(cos, words);
  if (!pairs_.empty()) print_pairs(w.table, w.vocab, w.bpe);
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
  print_neighbors(w.table, w.vocab, row_of(w.vocab, words_.front(), w.bpe).value_or(words_.front()),
                  k_);
  return 0;
}

}  // namespace andrea::cli
