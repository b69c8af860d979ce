// andrea-embed: runs the ANDREA-120M embedding layer, x[t] = wte[id_t] + wpe[t],
// on real token ids and shows what the lessons teach: the parameter table, the
// shape of x, row norms, dot products and cosine similarities.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <new>
#include <optional>
#include <utility>

#include "apps/backend.hpp"
#include "apps/file_options.hpp"
#include "apps/ids_input.hpp"
#include "apps/int_option.hpp"
#include "apps/npy.hpp"
#include "apps/output_files.hpp"
#include "apps/printable.hpp"
#include "apps/standard_streams.hpp"
#include "apps/tokenizer_commands.hpp"
#include "apps/train_commands.hpp"
#include "core/check.hpp"
#include "core/errors.hpp"
#include "core/init.hpp"
#include "core/numbers.hpp"
#include "reference/sinusoidal.hpp"
#ifdef ANDREA_HAVE_CUDA_CUDASIM
#include "cudasim/tools.hpp"
#endif

namespace {

using namespace andrea;

struct Options {
  std::string config = "andrea-120m";
  std::uint64_t seed = default_seed;
  std::string ids, ids_file, ids_format = "auto", text, bytes, out, backend;
  std::string pieces;                    // --text: the first tokens' bytes, printed beside the ids
  std::string positions = "learned";     // or "sinusoidal" (lesson 7)
  std::int64_t offset = 0, length = -1;  // length -1: to the end of the file
  // Which options were given: an empty value given on purpose is an error, not "absent".
  bool has_ids = false, has_ids_file = false, has_text = false, has_bytes = false, has_out = false,
       has_backend = false, has_seed = false;
  bool profile = false;    // --profile: the cudasim layer's profile of the main job's kernels
  cli::FileOptions files;  // --weights, --save-weights, --plot-*
};

// Runs `job`; with `on`, under the CPU execution layer's profile tool, whose reports (one per
// launch: requests, sectors, DRAM bytes, as Nsight Compute counts them) it returns.
template <class Job>
std::string profiled(bool on, Job job) {
#ifdef ANDREA_HAVE_CUDA_CUDASIM
  if (on) {
    static std::string reports;
    reports.clear();
    cudasim::set_profile_sink([](const std::string& report) { reports += report; });
    cudasim::set_tools(cudasim::profile);
    job();
    cudasim::set_tools(0);
    cudasim::set_profile_sink(nullptr);
    return reports;
  }
#endif
  job();
  return {};
}

std::vector<std::int32_t> read_input(Options& o, const Config& config, std::string* what) {
  if (o.has_ids) {
    *what = "--ids";
    return cli::parse_ids(o.ids, "--ids");
  }
  if (o.has_ids_file) {
    const cli::IdsFormat format = o.ids_format == "auto"   ? cli::guess_format(o.ids_file)
                                  : o.ids_format == "text" ? cli::IdsFormat::text
                                                           : cli::IdsFormat::uint16;
    *what = fmt::format("{} ({}, offset {})", o.ids_file,
                        format == cli::IdsFormat::text ? "text" : "raw uint16", o.offset);
    if (o.length > config.context_length) {
      throw InputError(fmt::format("--length {} is more than the context length T = {} of {}",
                                   o.length, config.context_length, config.name));
    }
    return cli::read_ids_file(o.ids_file, format, o.offset, o.length, config.context_length);
  }
  if (o.has_text) {  // the course's byte-level BPE (tokenizer/)
    *what = "--text through the course's tokenizer (tokenizer/merges.txt, V = 8,449)";
    return cli::text_ids(o.text, &o.pieces);
  }
  if (o.has_bytes) {
    *what = "--bytes as UTF-8 byte ids 0-255 (any bytes are taken as they are)";
    return cli::byte_ids(o.bytes);
  }
  *what = fmt::format("the lesson's example sequence (seed {})", o.seed);
  return example_ids(config.context_length, config.vocab_size, o.seed);
}

void print_parameters(const Config& c, const ParameterReport& r, bool learned_positions) {
  const auto share = [](std::int64_t part, std::int64_t whole) {
    return whole > 0 ? fmt::format("{:6.1f}%",
                                   100.0 * static_cast<double>(part) / static_cast<double>(whole))
                     : std::string("     -");
  };
  cli::print("\nparameters (counted while the tables were {})\n",
             c.model_params > 0 ? "written" : "read");
  cli::print("  {:<28} {:>14} {:>12} {:>9} {:>9}\n", "", "shape", "count", "of layer",
             c.model_params > 0 ? fmt::format("of ~{}M", c.model_params / 1'000'000) : "");
  cli::print("  {:<28} {:>14} {:>12} {} {}\n", "token embedding wte",
             fmt::format("({}, {})", c.vocab_size, c.d_model), grouped(r.token_params),
             share(r.token_params, r.total), share(r.token_params, c.model_params));
  cli::print("  {:<28} {:>14} {:>12} {} {}\n",
             learned_positions ? "position embedding wpe" : "sinusoidal positions (fixed)",
             fmt::format("({}, {})", c.context_length, c.d_model), grouped(r.position_params),
             share(r.position_params, r.total), share(r.position_params, c.model_params));
  cli::print("  {:<28} {:>14} {:>12} {} {}\n", "embedding layer", "", grouped(r.total),
             share(r.total, r.total), share(r.total, c.model_params));
  if (c.model_params > 0)
    cli::print("  {:<28} {:>14} {:>12}\n",
               c.tied_head ? "output head (tied to wte)" : "output head (untied)",
               fmt::format("({}, {})", c.vocab_size, c.d_model),
               c.tied_head ? "+0" : "+" + grouped(head_params(c)));
  cli::print("  memory: {} bytes in fp32 ({:.1f} MiB), {} in bf16\n", grouped(r.bytes),
             static_cast<double>(r.bytes) / (1 << 20), grouped(r.total * 2));
}

void print_summary(const cli::Backend& backend, const Matrix& x, std::span<const std::int32_t> ids,
                   bool untrained, std::string_view pos) {
  const std::int64_t n = x.rows(), d = x.cols();
  cli::print("\nx = wte[ids] + {}[0..n)   shape ({}, {}) float32\n", pos, n, d);
  for (std::int64_t t = 0; t < std::min<std::int64_t>(n, 3); ++t) {
    const auto row = x.row(t).first(static_cast<std::size_t>(std::min<std::int64_t>(d, 5)));
    cli::print("  x[{}] = wte[{}] + {}[{}] = [{:+.4f}, ...]\n", t, ids[static_cast<std::size_t>(t)],
               pos, t, fmt::join(row, ", "));
  }
  std::vector<float> norms(static_cast<std::size_t>(n));
  backend.row_norms(x, norms);
  const auto [lo, hi] = std::minmax_element(norms.begin(), norms.end());
  double mean = 0.0;
  for (const float v : norms) mean += v / static_cast<double>(n);
  cli::print(
      "  row norms ||x[t]||: first [{:.4f}]  min {:.4f} (t={})  mean {:.4f}  max {:.4f} (t={})\n",
      fmt::join(std::span(norms).first(static_cast<std::size_t>(std::min<std::int64_t>(n, 4))),
                ", "),
      *lo, lo - norms.begin(), mean, *hi, hi - norms.begin());

  const std::int64_t k = std::min<std::int64_t>(n, 4);
  const ConstFloatView first(x.view().data(), k, d);
  Matrix cos(k, k);
  backend.cosine_matrix(first, cos);
  cli::print("\n  first {} rows of x: dot product | cosine similarity\n", k);
  for (std::int64_t i = 0; i < k; ++i) {
    std::vector<std::string> dots, coss;
    for (std::int64_t j = 0; j < k; ++j) {
      dots.push_back(fmt::format("{:+8.4f}", backend.dot(first.row(i), first.row(j))));
      coss.push_back(fmt::format("{:+7.4f}", cos(i, j)));
    }
    cli::print("  x[{}] {} | {}\n", i, fmt::join(dots, " "), fmt::join(coss, " "));
  }
  if (pos == "wpe" && untrained) {
    cli::print(
        "  (untrained tables: rows are near-orthogonal, cosines near 0, norms near sqrt(2))\n");
  } else if (pos != "wpe") {
    cli::print(
        "  (every PE row has norm sqrt(d_model / 2) = {:.2f}: it outweighs a token row of norm "
        "~1)\n",
        std::sqrt(static_cast<double>(d) / 2.0));
  }
}

// Throws andrea::InputError at the first value of x = wte[id] + pos that is not finite:
// two finite tables (from a weights file) whose sum overflows float32, named by row.
void check_sum_finite(const Matrix& x, const Matrix& wte, const Matrix& wpe,
                      std::span<const std::int32_t> ids, std::string_view pos) {
  for (std::int64_t t = 0; t < x.rows(); ++t) {
    for (std::int64_t c = 0; c < x.cols(); ++c) {
      if (std::isfinite(x(t, c))) continue;
      const std::int32_t id = ids[static_cast<std::size_t>(t)];
      throw InputError(fmt::format(
          "x[{}] = wte[{}] + {}[{}] is {} in column {} ({} + {}): the tables' values are too "
          "large for their sum to fit float32",
          t, id, pos, t, x(t, c), c, wte(id, c), wpe(t, c)));
    }
  }
}

// Throws andrea::InputError when an output file is another, or is an input (before any work).
void check_paths(const Options& o, bool loaded) {
  std::vector<cli::NamedPath> outputs = cli::output_paths(o.files), inputs;
  if (o.has_out) outputs.push_back({"--out", o.out});
  if (o.has_ids_file) inputs.push_back({"--ids-file", o.ids_file});
  if (loaded) inputs.push_back({"--weights", o.files.weights});
  cli::check_outputs(outputs, inputs);
}

// The tables x is made of, and their parameters.
struct Tables {
  Matrix wte, wpe;
  ParameterReport report;
};

// The tables of the weights file (moved out of *loaded), or drawn by the backend from the seed;
// wpe the fixed sinusoidal table unless the positions are learned.
Tables make_tables(std::optional<cli::EmbeddingTables>& loaded, const Config& config,
                   const cli::Backend& backend, std::uint64_t seed, bool learned) {
  Tables t;
  if (loaded) {
    t.wte = std::move(loaded->wte), t.wpe = std::move(loaded->wpe);
    t.report = cli::loaded_report(t.wte, t.wpe);
  } else {
    t.wte = Matrix(config.vocab_size, config.d_model),
    t.wpe = Matrix(config.context_length, config.d_model);
    t.report = backend.materialize(config, seed, t.wte, t.wpe);
  }
  if (!learned) {  // the fixed table of lesson 7 replaces wpe: no position parameters
    reference::sinusoidal_table(config.context_length, config.d_model, config.context_length,
                                t.wpe);
    t.report.total -= t.report.position_params;
    t.report.bytes -= t.report.position_params * static_cast<std::int64_t>(sizeof(float));
    t.report.position_params = 0;
  }
  return t;
}

// Prints what the job is: backend, configuration, tables, input and positions.
void print_job(const Options& o, const Config& config, const cli::Backend& backend,
               const std::optional<cli::EmbeddingTables>& loaded, const std::string& source,
               std::span<const std::int32_t> ids, bool learned, bool from_file_sinusoidal) {
  cli::print("andrea-embed — the first layer of {}\n", config.name);
  cli::print("  backend  {}: {}\n", backend.name, backend.description);
  cli::print("  config   vocab_size V = {}, d_model = {}, context_length T = {}, {}\n",
             grouped(config.vocab_size), config.d_model, grouped(config.context_length),
             loaded             ? "from the tables' shapes"
             : config.tied_head ? "tied head"
                                : "untied head");
  if (loaded) {
    cli::print("  weights  {}: wte '{}' {}, wpe '{}' {}\n", cli::printable(o.files.weights),
               loaded->wte_name, loaded->wte_dtype, loaded->wpe_name, loaded->wpe_dtype);
  } else {
    cli::print("  init     N(0, 1) / sqrt({}) via Philox4x32-10, seed {}\n", config.d_model,
               o.seed);
  }
  cli::print("  input    {} token ids from {}: [{}{}]\n", ids.size(), cli::printable(source),
             fmt::join(std::span(ids).first(std::min<std::size_t>(ids.size(), 8)), ", "),
             ids.size() > 8 ? ", ..." : "");
  if (!o.pieces.empty()) cli::print("  pieces   {}\n", cli::printable(o.pieces));
  cli::print("  positions {}\n",
             learned ? (loaded ? "learned table wpe (T, d_model), from the weights file"
                               : "learned table wpe (T, d_model), N(0, 1) / sqrt(d_model)")
                     : fmt::format("sinusoidal PE[t, 2i] = sin(t w_i), PE[t, 2i+1] = cos(t w_i), "
                                   "w_i = 10000^(-2i/d_model){}",
                                   from_file_sinusoidal
                                       ? " (the weights file's __metadata__ says positions "
                                         "sinusoidal)"
                                       : ""));
}

// Writes every output file: every output's bytes first (a refused picture or table stops
// here), then all written or none; a line for each.
void write_outputs(const Options& o, const cli::Backend& backend, const Config& config,
                   const Matrix& wte, const Matrix& wpe, bool learned, const Matrix& x,
                   std::span<const std::int32_t> ids) {
  std::vector<cli::Output> files =
      cli::file_outputs(o.files, backend, config, o.seed, wte, wpe, !learned, x, ids);
  if (o.has_out) {
    files.push_back({{o.out, cli::npy_bytes(x, "x (for --out)")},
                     fmt::format("float32, shape ({}, {})", x.rows(), x.cols())});
  }
  std::vector<cli::FileBytes> bytes;
  for (cli::Output& f : files) bytes.push_back(std::move(f.file));
  cli::write_all(bytes);
  if (!files.empty()) cli::print("\n");
  for (std::size_t i = 0; i < files.size(); ++i) {
    cli::print("wrote {} ({})\n", cli::printable(bytes[i].path), files[i].note);
  }
}

int run(Options& o) {
  if (o.has_seed && o.files.weights_given() &&
      (o.has_ids || o.has_ids_file || o.has_text || o.has_bytes)) {
    throw InputError(
        "--seed has no effect with --weights and an input: the tables come from the file and the "
        "ids from --ids, --ids-file, --text or --bytes");
  }
  std::optional<cli::EmbeddingTables> loaded = cli::load_weights(o.files);  // --weights
  const Config config = loaded ? cli::config_of(*loaded) : config_by_name(o.config);
  const std::vector<cli::Backend> all = cli::backends();
  const cli::Backend& backend = cli::pick_backend(all, o.backend, o.has_backend);
  if (o.has_out && o.out.empty()) throw InputError("--out needs a file name");
  // A file saved with --positions sinusoidal says so: its wpe is the fixed table.
  const bool from_file_sinusoidal = loaded && loaded->sinusoidal;
  const bool learned = o.positions == "learned" && !from_file_sinusoidal;
  if (o.positions != "learned" && o.positions != "sinusoidal") {
    throw InputError(
        fmt::format("unknown position scheme '{}': learned or sinusoidal (RoPE acts "
                    "inside attention, not on x)",
                    o.positions));
  }

  std::string source;
  const std::vector<std::int32_t> ids = read_input(o, config, &source);
  // Check the ids before the tables are drawn (combine checks them again).
  check::sequence_length(static_cast<std::int64_t>(ids.size()), config.context_length);
  check::token_ids(ids, config.vocab_size);
  cli::check_file_options(o.files);
  check_paths(o, loaded.has_value());
  Tables tables = make_tables(loaded, config, backend, o.seed, learned);
  const Matrix &wte = tables.wte, &wpe = tables.wpe;
  Matrix x(static_cast<std::int64_t>(ids.size()), config.d_model);
  if (o.profile && backend.name != "cudasim") {
    throw InputError(
        "--profile measures the kernels on the CPU execution layer: add --backend cudasim");
  }
  // combine validates ids and length before writing.
  const std::string profile = profiled(o.profile, [&] { backend.combine(wte, wpe, ids, x); });
  check_sum_finite(x, wte, wpe, ids, learned ? "wpe" : "PE");

  print_job(o, config, backend, loaded, source, ids, learned, from_file_sinusoidal);
  print_parameters(config, tables.report, learned);
  print_summary(backend, x, ids, !loaded, learned ? "wpe" : "PE");
  if (o.profile) {
    cli::print(
        "\nprofile of the main job's kernels (cudasim/README.md, \"Measuring a kernel\"):\n{}",
        profile);
  }
  write_outputs(o, backend, config, wte, wpe, learned, x, ids);
  return 0;
}

// Prints "andrea-embed: error: <what>" (escaped: messages quote files) and returns `status`.
int error(std::string_view what, int status) {
  fmt::print(stderr, "andrea-embed: error: {}\n", cli::printable(what));
  return status;
}

// A run's exit status once its standard output is flushed and closed: a write that fails
// only now (a full disk, `>&-`) is reported, not lost: exit 1.
int finish(int status) {
  try {
    cli::close_stdout();
  } catch (const OutputError& e) {
    return error(e.what(), 1);
  }
  return status;
}

// Runs the command the parsed line names and returns its exit status: 0, 1 when a write
// fails (andrea::OutputError) or the run fails, 2 for bad input (andrea::InputError) and
// for tables that do not fit in memory.
int dispatch(const CLI::App& app, Options& o, const cli::TrainingCommands& training,
             const cli::TokenizerCommands& tokenizer) {
  try {
    if (training.chosen() || tokenizer.chosen()) {
      for (const CLI::Option* option : app.get_options()) {  // CLI11 gives an option before
        if (option->count() > 0) {                           // the subcommand to the forward pass
          throw andrea::InputError(fmt::format(
              "{} is an option of the forward pass, not of the subcommand: put the subcommand's "
              "options after it (andrea-embed train --help)",
              option->get_name()));
        }
      }
      return finish(training.chosen() ? training.run() : tokenizer.run());
    }
    return finish(run(o));
  } catch (const andrea::InputError& e) {
    return error(e.what(), 2);
  } catch (const andrea::OutputError& e) {  // a full disk, a closed standard output
    return error(e.what(), 1);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "andrea-embed: error: out of memory: the tables asked for do not fit ({})\n",
               training.chosen()         ? training.out_of_memory_hint()
               : o.files.weights_given() ? "a smaller --weights file?"
                                         : "the tables of --config: more memory?");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "andrea-embed: failed: {}\n", cli::printable(e.what()));
    return 1;
  }
}

// Adds the forward pass's options to `app`, storing into `o`; returns each option whose
// presence matters with the flag of `o` that records it (set once the line is parsed).
std::vector<std::pair<CLI::Option*, bool*>> add_options(CLI::App& app, Options& o) {
  auto* ids =
      app.add_option("--ids", o.ids, "token ids, comma- or space-separated: --ids 256,1842,7301");
  auto* file = app.add_option("--ids-file", o.ids_file,
                              "a file of ids: text (comma/whitespace) or raw little-endian uint16 "
                              "as nanoGPT's train.bin (*.bin)");
  app.add_option("--ids-format", o.ids_format,
                 "format of --ids-file: auto (by extension), text, uint16")
      ->check(CLI::IsMember({"auto", "text", "uint16"}))
      ->capture_default_str()
      ->needs(file);
  cli::add_int_option<std::int64_t>(app, "--offset", o.offset, 0, INT64_MAX,
                                    "first id of the window read from --ids-file")
      ->needs(file);
  cli::add_int_option<std::int64_t>(app, "--length", o.length, 1, INT64_MAX,
                                    "number of ids read from --ids-file (n <= T)")
      ->needs(file)
      ->default_str("to the end, at most T");
  auto* text = app.add_option("--text", o.text,
                              "text, read as the ids of the course's BPE tokenizer (V = 8,449)");
  auto* bytes = app.add_option("--bytes", o.bytes,
                               "text, read as byte ids 0-255 (the 256 byte tokens, no merge)");
  ids->excludes(file)->excludes(text)->excludes(bytes);
  file->excludes(text)->excludes(bytes);
  text->excludes(bytes);
  app.add_option("--config", o.config, "andrea-120m or gpt2-124m")
      ->check(CLI::IsMember({"andrea-120m", "gpt2-124m"}))
      ->capture_default_str();
  auto* seed = cli::add_int_option<std::uint64_t>(app, "--seed", o.seed, 0, UINT64_MAX,
                                                  "seed of the Philox init and of the example ids");
  auto* out = app.add_option("--out", o.out,
                             "write x to this .npy file (numpy.load: float32, shape (n, d_model))");
  app.add_option(
         "--positions", o.positions,
         "learned (the table wpe) or sinusoidal (the fixed table of lesson 7, 0 parameters)")
      ->capture_default_str();
  auto* backend = app.add_option(
      "--backend", o.backend,
      "cpu, cudasim (CUDA kernels on the CPU) or gpu (GPU); default: the GPU if present, else cpu");
  app.add_flag(
      "--profile", o.profile,
      "with --backend cudasim: the kernels' memory traffic (requests, sectors, DRAM bytes)");
  cli::add_file_options(app, o.files);
  return {{ids, &o.has_ids}, {file, &o.has_ids_file},   {text, &o.has_text}, {bytes, &o.has_bytes},
          {out, &o.has_out}, {backend, &o.has_backend}, {seed, &o.has_seed}};
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and the run says so,
  // instead of the process being killed by SIGXFSZ with its temporaries left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  cli::reserve_standard_streams();  // `<&-`, `>&-`: no file the run opens takes their place
  CLI::App app{
      "Runs the embedding layer x[t] = wte[id_t] + wpe[t] of ANDREA-120M (or GPT-2 124M) on\n"
      "token ids and prints the parameter table, the shape of x, row norms and similarities.\n"
      "With no input option it uses the lesson's example: 1,024 ids starting 256, 1842, 7301."};
  Options o;
  const std::vector<std::pair<CLI::Option*, bool*>> given = add_options(app, o);
  cli::TrainingCommands training(app);    // lesson 9: train, similar, neighbors
  cli::TokenizerCommands tokenizer(app);  // tokenizer train, tokenize, detokenize
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {  // --help exits 0; a malformed command line is bad input
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e);  // the help, on standard output: checked as every output
      return finish(0);
    }
    return error(fmt::format("{} (see andrea-embed --help)", e.what()), 2);
  }
  for (const auto& [option, flag] : given) *flag = option->count() > 0;
  return dispatch(app, o, training, tokenizer);
}
