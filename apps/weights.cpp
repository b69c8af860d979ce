#include "apps/weights.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

#include "apps/finite.hpp"
#include "apps/safetensors.hpp"
#include "core/errors.hpp"

namespace andrea::cli {

namespace {

std::vector<std::string> candidates(const std::string& table) {
  return {table, table + ".weight", "transformer." + table, "transformer." + table + ".weight"};
}

// The first candidate name present in the file, or an error listing what was tried.
const Tensor& pick(const Safetensors& file, const std::string& table, const std::string& path) {
  for (const std::string& name : candidates(table)) {
    if (const Tensor* t = file.find(name)) {
      if (t->shape.size() != 2 || t->shape[0] == 0 || t->shape[1] == 0) {
        throw InputError(
            fmt::format("{}: tensor '{}' has shape [{}]; the table {} must be 2-D "
                        "(rows, d_model) with no empty dimension",
                        path, name, fmt::join(t->shape, ", "), table));
      }
      return *t;
    }
  }
  const std::vector<std::string>& names = file.names;
  throw InputError(fmt::format(
      "{}: no {} table: looked for {}; the file holds {}{}", path, table,
      fmt::join(candidates(table), ", "),
      names.empty()
          ? "no tensors"
          : fmt::format("{}",
                        fmt::join(names.begin(),
                                  names.begin() + std::min<std::size_t>(names.size(), 8), ", ")),
      names.size() > 8 ? ", ..." : ""));
}

// The tensor as a table, its values checked where they are read.
Matrix to_matrix(const Tensor& t, const std::string& path) {
  Matrix m(t.shape[0], t.shape[1]);
  std::copy(t.values.begin(), t.values.end(), m.view().data());
  check_finite_rows(m, fmt::format("{}: tensor '{}'", path, t.name));
  return m;
}

}  // namespace

EmbeddingTables load_embedding_tables(const std::string& path) {
  std::vector<std::string> wanted = candidates("wte");
  for (const std::string& name : candidates("wpe")) wanted.push_back(name);
  const Safetensors file = read_safetensors(path, wanted);
  const Tensor& wte = pick(file, "wte", path);
  const Tensor& wpe = pick(file, "wpe", path);
  if (wte.shape[1] != wpe.shape[1]) {
    throw InputError(fmt::format(
        "{}: tables disagree on d_model: '{}' has shape [{}, {}], '{}' has "
        "shape [{}, {}]",
        path, wte.name, wte.shape[0], wte.shape[1], wpe.name, wpe.shape[0], wpe.shape[1]));
  }
  EmbeddingTables tables{
      to_matrix(wte, path), to_matrix(wpe, path), wte.name, wpe.name, wte.dtype, wpe.dtype};
  const auto positions = file.metadata.find("positions");
  tables.sinusoidal = positions != file.metadata.end() && positions->second == "sinusoidal";
  return tables;
}

Config config_of(const EmbeddingTables& t) {
  return {"the file's tables", t.wte.rows(), t.wte.cols(), t.wpe.rows(), false, 0};
}

std::string weights_bytes(ConstFloatView wte, ConstFloatView wpe, const Config& config,
                          std::uint64_t seed, bool sinusoidal) {
  return safetensors_bytes({{"wte", wte}, {"wpe", wpe}},
                           {{"format", "andrea-embeddings"},
                            {"config", std::string(config.name)},
                            {"vocab_size", std::to_string(config.vocab_size)},
                            {"d_model", std::to_string(config.d_model)},
                            {"context_length", std::to_string(config.context_length)},
                            {"seed", std::to_string(seed)},
                            {"positions", sinusoidal ? "sinusoidal" : "learned"}});
}

}  // namespace andrea::cli
