// The tokenizer's subcommands of andrea-embed: tokenizer train, tokenize, detokenize.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace andrea::cli {

/// `text` (any bytes) as the ids of the course's tokenizer (tokenizer/merges.txt, V = 8,449),
/// for andrea-embed --text; `pieces` gets the first `shown` ids with their bytes, printable:
/// "386 'the' | 1470 ' cat'". Throws andrea::InputError when the merges file cannot be read.
std::vector<std::int32_t> text_ids(std::string_view text, std::string* pieces,
                                   std::size_t shown = 8);

/// Registers `tokenizer train`, `tokenizer corpus`, `tokenize` and `detokenize` on the program's CLI11 app;
/// after parsing, chosen() says whether one of them was given and run() runs it (returns
/// the exit status; throws andrea::InputError on bad input, before any output is written).
class TokenizerCommands {
 public:
  explicit TokenizerCommands(CLI::App& app);
  bool chosen() const;
  int run() const;

 private:
  CLI::App *tokenizer_ = nullptr, *train_ = nullptr, *corpus_command_ = nullptr, *tokenize_ = nullptr,
           *detokenize_ = nullptr;
  std::string corpus_ = "/usr/share/wordnet", out_, merges_file_, file_, text_;
  std::vector<std::string> ids_;
  std::int64_t merges_ = 8192;
  bool has_file_ = false, pieces_ = false, quiet_ = false;
  CLI::Option *file_option_ = nullptr, *text_option_ = nullptr;
  int run_train() const;
  int run_corpus() const;
  std::string read_training_text() const;
  int run_tokenize() const;
  int run_detokenize() const;
};

}  // namespace andrea::cli
