// The options of andrea-embed that read and write files besides the ids:
// --weights (tables from a safetensors file), --save-weights, and the pictures
// --plot-similarity, --plot-table, --plot-norms.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "apps/backend.hpp"
#include "apps/output_files.hpp"
#include "apps/weights.hpp"
#include "core/config.hpp"
#include "reference/params.hpp"

namespace andrea::cli {

struct FileOptions {
  std::string weights, save_weights, plot_similarity, plot_norms;
  std::vector<std::string> plot_table;  ///< {table name, file}
  /// The options themselves (CLI11), to ask whether each was given on the command line.
  CLI::Option *weights_option = nullptr, *save_weights_option = nullptr,
              *plot_similarity_option = nullptr, *plot_norms_option = nullptr,
              *plot_table_option = nullptr;

  bool weights_given() const { return weights_option->count() > 0; }
};

/// Adds the five options to `app` (--weights excludes --config, added before).
void add_file_options(CLI::App& app, FileOptions& f);

/// Throws andrea::InputError, before any work, when a given option's file name
/// is empty or a table name is not wte or wpe.
void check_file_options(const FileOptions& f);

/// The output files asked for (--save-weights, --plot-*), for check_outputs.
std::vector<NamedPath> output_paths(const FileOptions& f);

/// One output file's bytes and what it holds, for the line printed once it is written.
struct Output {
  FileBytes file;
  std::string note;
};

/// The tables of --weights (load_embedding_tables), or nothing when not given.
/// Throws andrea::InputError when the file name is empty or the file is refused.
std::optional<EmbeddingTables> load_weights(const FileOptions& f);

/// What was loaded, counted from the tables read (float32 in memory).
ParameterReport loaded_report(ConstFloatView wte, ConstFloatView wpe);

/// The bytes of every output file asked for: --save-weights (wte, wpe, config, seed, and
/// whether wpe is the sinusoidal table),
/// and the pictures of x (n, d_model) and the tables. Writes nothing (write_all does).
/// Throws andrea::InputError when a table or a picture is refused (a non-finite value).
std::vector<Output> file_outputs(const FileOptions& f, const Backend& backend, const Config& config,
                                 std::uint64_t seed, ConstFloatView wte, ConstFloatView wpe,
                                 bool sinusoidal, ConstFloatView x,
                                 std::span<const std::int32_t> ids);

}  // namespace andrea::cli
