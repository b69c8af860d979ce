// Lesson 9's subcommands of andrea-embed: train, similar, neighbors.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "apps/backend.hpp"
#include "training/corpus.hpp"
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
  CLI::App *train_ = nullptr, *similar_ = nullptr, *neighbors_ = nullptr;
  training::TrainOptions options_;
  std::string backend_ = "cpu", corpus_ = "/usr/share/wordnet", out_ = "embeddings.safetensors",
              pairs_, weights_;
  std::int64_t min_count_ = 3, k_ = 10;
  std::uint64_t init_seed_ = 0;
  CLI::Option* init_seed_option_ = nullptr;
  bool quiet_ = false, centre_ = false;
  std::vector<std::string> words_;
  std::string svg_, dump_;
  int run_train() const;
  int run_similar() const;
  int run_neighbors() const;
  // The steps of run_train.
  std::string corpus_text(const training::Corpus& corpus, const training::Vocabulary& vocab,
                          std::span<const std::int32_t> ids) const;
  void print_setup(const training::Corpus& corpus, const training::Vocabulary& vocab,
                   const Backend& backend) const;
  std::map<std::string, std::string> metadata(const training::Corpus& corpus,
                                              const training::Vocabulary& vocab) const;
  void print_results(const training::Tables& tables, const training::Vocabulary& vocab) const;
};

}  // namespace andrea::cli
