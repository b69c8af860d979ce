#include "apps/file_options.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <utility>

#include "apps/svg.hpp"
#include "core/errors.hpp"

namespace andrea::cli {

namespace {

bool given(const CLI::Option* option) { return option->count() > 0; }

/// The options that name one file, each beside the file name it was given.
std::vector<std::pair<const CLI::Option*, const std::string*>> file_name_options(
    const FileOptions& f) {
  return {{f.weights_option, &f.weights},
          {f.save_weights_option, &f.save_weights},
          {f.plot_similarity_option, &f.plot_similarity},
          {f.plot_norms_option, &f.plot_norms}};
}

}  // namespace

void add_file_options(CLI::App& app, FileOptions& f) {
  f.weights_option =
      app.add_option("--weights", f.weights,
                     "run on the tables of this safetensors file (wte/wpe, or GPT-2's "
                     "[transformer.]wte.weight/wpe.weight; F32, BF16 or F16): V, "
                     "d_model, T from their shapes")
          ->excludes("--config");
  f.save_weights_option = app.add_option(
      "--save-weights", f.save_weights,
      "write wte and wpe to this safetensors file (F32, config and seed in __metadata__)");
  f.plot_similarity_option = app.add_option(
      "--plot-similarity", f.plot_similarity,
      "draw the cosine similarities of the first rows of x (up to 16) as an SVG heatmap");
  f.plot_norms_option =
      app.add_option("--plot-norms", f.plot_norms, "draw a histogram of the row norms of x as SVG");
  f.plot_table_option =
      app.add_option("--plot-table", f.plot_table,
                     "draw a table, rows x dimensions, as an SVG image: --plot-table wpe wpe.svg")
          ->expected(2);
}

void check_file_options(const FileOptions& f) {
  for (const auto& [option, file] : file_name_options(f)) {
    if (given(option) && file->empty()) {
      throw InputError(fmt::format("{} needs a file name", option->get_name()));
    }
  }
  if (given(f.plot_table_option)) {
    if (f.plot_table[0] != "wte" && f.plot_table[0] != "wpe") {
      throw InputError(fmt::format("--plot-table draws wte or wpe, not '{}'", f.plot_table[0]));
    }
    if (f.plot_table[1].empty()) throw InputError("--plot-table needs a file name");
  }
}

std::vector<NamedPath> output_paths(const FileOptions& f) {
  std::vector<NamedPath> out;
  for (const auto& [option, file] : file_name_options(f)) {
    if (option != f.weights_option && given(option)) out.push_back({option->get_name(), *file});
  }
  if (given(f.plot_table_option)) out.push_back({"--plot-table", f.plot_table[1]});
  return out;
}

std::optional<EmbeddingTables> load_weights(const FileOptions& f) {
  if (!f.weights_given()) return std::nullopt;
  if (f.weights.empty()) throw InputError("--weights needs a file name");
  return load_embedding_tables(f.weights);
}

ParameterReport loaded_report(ConstFloatView wte, ConstFloatView wpe) {
  const std::int64_t token = wte.size(), position = wpe.size();
  return {token, position, token + position, 4 * (token + position)};
}

std::vector<Output> file_outputs(const FileOptions& f, const Backend& backend, const Config& config,
                                 std::uint64_t seed, ConstFloatView wte, ConstFloatView wpe,
                                 bool sinusoidal, ConstFloatView x,
                                 std::span<const std::int32_t> ids) {
  std::vector<Output> files;
  const auto add = [&](const std::string& path, std::string bytes, std::string note) {
    files.push_back({{path, std::move(bytes)}, std::move(note)});
  };
  if (given(f.save_weights_option)) {
    add(f.save_weights, weights_bytes(wte, wpe, config, seed, sinusoidal),
        fmt::format("safetensors: wte ({}, {}), wpe ({}, {}){} F32", wte.rows(), wte.cols(),
                    wpe.rows(), wpe.cols(), sinusoidal ? " the sinusoidal table" : ""));
  }
  if (given(f.plot_similarity_option)) {  // cosine similarities of the first rows of x
    const std::int64_t k = std::min<std::int64_t>(x.rows(), 16);
    Matrix cos(k, k);
    backend.cosine_matrix(ConstFloatView(x.data(), k, x.cols()), cos);
    std::vector<std::string> labels;
    for (std::int64_t t = 0; t < k; ++t)
      labels.push_back(fmt::format("t={} id {}", t, ids[static_cast<std::size_t>(t)]));
    add(f.plot_similarity,
        svg::heatmap(fmt::format("cosine similarity of the first {} rows of x", k), labels, cos),
        fmt::format("SVG heatmap, {} x {} cosines", k, k));
  }
  if (given(f.plot_norms_option)) {  // row norms of x
    std::vector<float> norms(static_cast<std::size_t>(x.rows()));
    backend.row_norms(x, norms);
    add(f.plot_norms,
        svg::histogram(fmt::format("row norms ||x[t]|| of the {} rows of x", x.rows()), norms),
        fmt::format("SVG histogram of {} row norms", norms.size()));
  }
  if (given(f.plot_table_option)) {  // a table, rows x dimensions
    const ConstFloatView table = f.plot_table[0] == "wte" ? wte : wpe;
    add(f.plot_table[1], svg::table_image(f.plot_table[0], table),
        fmt::format("SVG image of {} ({}, {}): rows 0..{}, dimensions 0..{}", f.plot_table[0],
                    table.rows(), table.cols(), std::min<std::int64_t>(table.rows(), 64) - 1,
                    std::min<std::int64_t>(table.cols(), 128) - 1));
  }
  return files;
}

}  // namespace andrea::cli
