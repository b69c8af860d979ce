// Lesson 9's subcommands of andrea-embed: train, similar, neighbors.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

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

 private:
  CLI::App *train_ = nullptr, *similar_ = nullptr, *neighbors_ = nullptr;
  training::TrainOptions options_;
  std::string backend_ = "cpu", corpus_ = "/usr/share/wordnet", out_ = "embeddings.safetensors", pairs_, weights_;
  std::int64_t min_count_ = 3, k_ = 10, init_seed_ = -1;
  bool quiet_ = false, centre_ = false;
  std::vector<std::string> words_;
  std::string svg_, dump_;
  int run_train() const;
  int run_similar() const;
  int run_neighbors() const;
};

}  // namespace andrea::cli
