#include "apps/tokenizer_commands.hpp"

#include <fmt/format.h>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "apps/file_name_option.hpp"
#include "apps/ids_input.hpp"
#include "apps/int_option.hpp"
#include "apps/output_files.hpp"
#include "apps/printable.hpp"
#include "apps/standard_streams.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "tokenizer/bpe.hpp"
#include "training/corpus.hpp"

#ifndef ANDREA_DEFAULT_MERGES
#define ANDREA_DEFAULT_MERGES "tokenizer/merges.txt"
#endif

namespace andrea::cli {

namespace {

// --merges-file FILE on `app`: the course's tokenizer unless it names another.
void add_merges_file(CLI::App& app, std::string& target) {
  target = ANDREA_DEFAULT_MERGES;
  add_file_option(app, "--merges-file", target, "the tokenizer's merges file");
}

}  // namespace

std::vector<std::int32_t> text_ids(std::string_view text, std::string* pieces, std::size_t shown) {
  const tokenizer::Tokenizer tok = tokenizer::read_merges(ANDREA_DEFAULT_MERGES);
  std::vector<std::int32_t> ids = tokenizer::encode(tok, text);
  for (std::size_t i = 0; i < ids.size() && i < shown; ++i) {
    *pieces += fmt::format("{}{} '{}'", i ? " | " : "", ids[i],
                           printable(tokenizer::token_bytes(tok, ids[i])));
  }
  if (ids.size() > shown) *pieces += " | ...";
  return ids;
}

TokenizerCommands::TokenizerCommands(CLI::App& app) {
  tokenizer_ = app.add_subcommand("tokenizer", "the byte-level BPE tokenizer (V = 8,449)");
  tokenizer_->require_subcommand(1);
  train_ = tokenizer_->add_subcommand(
      "train", "learn BPE merges from a corpus and write the merges file (deterministic)");
  add_file_option(*train_, "--corpus", corpus_,
                  "a text file (any bytes but NUL, at most 256 MiB), or a WordNet folder (its "
                  "glosses, as lesson 9)");
  add_int_option<std::int64_t>(*train_, "--merges", merges_, 0, tokenizer::max_merges,
                               "number of merges: V = 256 + merges + 1");
  add_file_option(*train_, "--out", out_, "the merges file to write")->required();
  train_->add_flag("--quiet", quiet_, "print only the written file's line");
  corpus_command_ = tokenizer_->add_subcommand(
      "corpus", "write the text train reads from --corpus (the WordNet glosses), for other tools");
  add_file_option(*corpus_command_, "--corpus", corpus_, "a text file or a WordNet folder");
  add_file_option(*corpus_command_, "--out", out_, "the text file to write")->required();

  tokenize_ = app.add_subcommand("tokenize", "print the token ids of TEXT or of --file FILE");
  text_option_ = tokenize_->add_option("text", text_, "the text (bytes as given)");
  file_option_ = add_file_option(*tokenize_, "--file", file_,
                                 "read the bytes of this file (any bytes, at most 256 MiB)");
  text_option_->excludes(file_option_);
  tokenize_->add_flag("--pieces", pieces_, "print each id with its bytes, one per line");
  add_merges_file(*tokenize_, merges_file_);

  detokenize_ = app.add_subcommand("detokenize",
                                   "write the bytes of token ids (arguments, or standard input)");
  detokenize_->add_option("ids", ids_, "token ids (commas or spaces); none: read stdin");
  add_merges_file(*detokenize_, merges_file_);
}

bool TokenizerCommands::chosen() const {
  return tokenizer_->parsed() || tokenize_->parsed() || detokenize_->parsed();
}

int TokenizerCommands::run() const {
  if (train_->parsed()) return run_train();
  if (corpus_command_->parsed()) return run_corpus();
  if (tokenize_->parsed()) return run_tokenize();
  return run_detokenize();
}

std::string TokenizerCommands::read_training_text() const {
  std::error_code ec;
  return std::filesystem::is_directory(corpus_, ec) ? training::read_wordnet_text(corpus_)
                                                    : tokenizer::read_corpus_bytes(corpus_);
}

int TokenizerCommands::run_corpus() const {
  check_outputs({{"--out", out_}}, {{"--corpus", corpus_}});
  const std::string text = read_training_text();
  write_file(out_, text);
  cli::print("wrote {} ({} bytes)\n", printable(out_), text.size());
  return 0;
}

int TokenizerCommands::run_train() const {
  check_outputs({{"--out", out_}}, {{"--corpus", corpus_}});
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(corpus_, ec);
  const std::string corpus = read_training_text();
  const auto start = std::chrono::steady_clock::now();
  const tokenizer::Tokenizer tok = tokenizer::train(corpus, merges_);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string text = tokenizer::merges_text(tok);
  write_file(out_, text);
  if (!quiet_) {
    cli::print("corpus   {} ({} bytes)\n",
               printable(folder ? fmt::format("WordNet glosses in {}", corpus_) : corpus_),
               corpus.size());
    cli::print("merges   {} in {:.2f} s: vocab_size V = 256 + {} + 1 = {}\n", merges_, seconds,
               merges_, tok.vocab_size());
  }
  cli::print("wrote {} ({} bytes)\n", printable(out_), text.size());
  return 0;
}

int TokenizerCommands::run_tokenize() const {
  const tokenizer::Tokenizer tok = tokenizer::read_merges(merges_file_);
  std::string bytes = text_;
  if (file_option_->count() > 0) {
    bytes =
        read_input_file(file_, "--file");  // any bytes, NUL too; a regular file, 256 MiB at most
  } else if (text_option_->count() == 0) {
    throw InputError("tokenize needs TEXT or --file FILE");
  }
  const std::vector<std::int32_t> ids = tokenizer::encode(tok, bytes);
  if (pieces_) {
    for (const std::int32_t id : ids) {
      cli::print("{:>5}  \"{}\"\n", id, printable(tokenizer::token_bytes(tok, id)));
    }
    return 0;
  }
  std::string line;
  for (std::size_t i = 0; i < ids.size(); ++i) line += (i ? " " : "") + std::to_string(ids[i]);
  cli::print("{}\n", line);
  return 0;
}

int TokenizerCommands::run_detokenize() const {
  const tokenizer::Tokenizer tok = tokenizer::read_merges(merges_file_);
  std::string text;  // the ids, as typed
  if (ids_.empty()) {
    text = read_standard_input();  // at most 256 MiB, as any file read whole
  } else {
    for (const std::string& id : ids_) text += id + " ";
  }
  const std::vector<std::int32_t> ids =
      parse_ids(text, ids_.empty() ? "standard input" : "the ids");
  write_stdout(tokenizer::decode(tok, ids));  // counts and checks every id before any byte
  return 0;
}

}  // namespace andrea::cli
