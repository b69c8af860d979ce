#include "apps/file_options.hpp"

#include <fmt/format.h>

#include "apps/npy.hpp"
#include "reference/errors.hpp"

namespace andrea::cli {

void add_file_options(CLI::App& app, FileOptions& f) {
  f.options[0] = app.add_option("--weights", f.weights,
                                "run on the tables of this safetensors file (wte/wpe, or GPT-2's "
                                "[transformer.]wte.weight/wpe.weight; F32, BF16 or F16): V, d_model, T from their shapes")
                     ->excludes("--config");
  f.options[1] = app.add_option("--save-weights", f.save_weights,
                                "write wte and wpe to this safetensors file (F32, config and seed in __metadata__)");
  f.options[2] = app.add_option("--plot-similarity", f.plot_similarity,
                                "draw the cosine similarities of the first rows of x (up to 16) as an SVG heatmap");
  f.options[3] = app.add_option("--plot-norms", f.plot_norms, "draw a histogram of the row norms of x as SVG");
  f.options[4] = app.add_option("--plot-table", f.plot_table,
                                "draw a table, rows x dimensions, as an SVG image: --plot-table wpe wpe.svg")
                     ->expected(2);
}

void check_file_options(const FileOptions& f) {
  const std::string* files[] = {&f.weights, &f.save_weights, &f.plot_similarity, &f.plot_norms};
  for (int i = 0; i < 4; ++i) {
    if (f.options[i]->count() > 0 && files[i]->empty()) {
      throw InputError(fmt::format("{} needs a file name", f.options[i]->get_name()));
    }
    if (i > 0 && f.options[i]->count() > 0) check_writable(*files[i]);
  }
  if (f.options[4]->count() > 0) {
    if (f.plot_table[0] != "wte" && f.plot_table[0] != "wpe") {
      throw InputError(fmt::format("--plot-table draws wte or wpe, not '{}'", f.plot_table[0]));
    }
    if (f.plot_table[1].empty()) throw InputError("--plot-table needs a file name");
    check_writable(f.plot_table[1]);
  }
}

std::optional<EmbeddingTables> load_weights(const FileOptions& f) {
  if (f.options[0]->count() == 0) return std::nullopt;
  if (f.weights.empty()) throw InputError("--weights needs a file name");
  return load_embedding_tables(f.weights);
}

ParameterReport loaded_report(ConstFloatView wte, ConstFloatView wpe) {
  const std::int64_t token = wte.size(), position = wpe.size();
  return {token, position, token + position, 4 * (token + position)};
}

void write_file_outputs(const FileOptions& f, const Backend& /*backend*/, const Config& config,
                        std::uint64_t seed, ConstFloatView wte, ConstFloatView wpe, ConstFloatView /*x*/,
                        std::span<const std::int32_t> /*ids*/) {
  if (f.options[1]->count() > 0) {
    save_embedding_tables(f.save_weights, wte, wpe, config, seed);
    fmt::print("wrote {} (safetensors: wte ({}, {}), wpe ({}, {}) F32)\n", f.save_weights, wte.rows(),
               wte.cols(), wpe.rows(), wpe.cols());
  }
}

}  // namespace andrea::cli
