// Lesson 9's subcommands of andrea-embed: train, similar, neighbors.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "apps/backend.hpp"
#include "training/corpus.hpp"
#include "training/similarity.hpp"
#include "training/trainer.hpp"

namespace andrea::cli {

/// Registers `train`, `similar` and `neighbors` on the program's CLI11 app; after parsing,
/// chosen() says whether one of them was given and run() runs it (returns the exit status;
/// throws andrea::InputError on bad input, before any output file is written).
class TrainingCommands {
 public:
  explicit TrainingCommands(CLI::App& app);
  bool chosen() const;
  int run() const;
  /// What to change when the chosen subcommand ran out of memory: train's sizes, or the
  /// --weights file of similar and neighbors.
  std::string_view out_of_memory_hint() const;

 private:
  /// What train trains on: the corpus as ids in sentences, and the vocabulary that names each
  /// id's row (words, or BPE tokens with --tokens bpe).
  struct TrainingText {
    std::vector<std::int32_t> ids;
    std::vector<std::int64_t> sentence_starts;
    training::Vocabulary vocab;
    std::string source;  ///< where the corpus was read from
    std::string setup;   ///< the report's corpus and vocab lines
  };

  CLI::App *train_ = nullptr, *similar_ = nullptr, *neighbors_ = nullptr;
  training::TrainOptions options_;
  std::string backend_ = "cpu", corpus_ = "/usr/share/wordnet", out_ = "embeddings.safetensors",
              pairs_, weights_, tokens_ = "words", merges_;
  std::int64_t min_count_ = 3, k_ = 10;
  std::uint64_t init_seed_ = 0;
  CLI::Option *init_seed_option_ = nullptr, *d_model_option_ = nullptr,
              *min_count_option_ = nullptr, *merges_option_ = nullptr;
  bool quiet_ = false, centre_ = false;
  std::vector<std::string> words_;
  std::string svg_, dump_;
  void add_train_options();
  int run_train() const;
  int run_similar() const;
  int run_neighbors() const;
  // The steps of run_train.
  bool bpe() const { return tokens_ == "bpe"; }
  training::TrainOptions train_options() const;
  TrainingText read_words() const;
  TrainingText read_tokens() const;
  std::string corpus_text(const TrainingText& text) const;
  void print_setup(const TrainingText& text, const Backend& backend) const;
  std::map<std::string, std::string> metadata(const TrainingText& text) const;
  std::vector<training::WordPair> pairs_as_rows(const training::Vocabulary& vocab, bool bpe) const;
  void print_pairs(ConstFloatView table, const training::Vocabulary& vocab, bool bpe) const;
  void print_results(const training::Tables& tables, const training::Vocabulary& vocab) const;
};

}  // namespace andrea::cli
