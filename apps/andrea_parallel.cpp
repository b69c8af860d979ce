// andrea-embed-parallel: lesson 10's vocabulary-parallel embedding on MPI.
//
//   mpirun -np 4 andrea-embed-parallel                   the example sequence, ANDREA-120M
//   mpirun -np 3 andrea-embed-parallel --batch 2 --repeat 20 --backend gpu
//
// Every rank holds its shard of wte (V_p rows, core/vocab_shard.hpp), the whole wpe
// and the same ids. One training step of the embedding layer:
//   forward   part = masked lookup of this rank's ids      (no communication)
//             MPI_Allreduce(part, sum)                     (B * n * d_model floats)
//             x = sum + wpe[t]                             (every rank, replicated)
//   backward  dout = x, the gradient of L = sum(x^2) / 2   (already on every rank)
//             dwte_shard: lesson 8's backward on the ids this rank owns; dwpe on every rank
// Then the check: x, the gathered dwte and dwpe against the one-process combine and
// backward (lessons 5 and 8), bit for bit.
//
// Every local step ends in a vote (one MPI_Allreduce of an int): a rank that fails -
// a bad id, a refused p, an exception - makes every rank stop together, so no rank is
// left waiting in a collective (--bad-id-on-rank R shows it: rank R alone fails). Exit 0: checks pass; 1: a check or a step failed;
// 2: bad input (every rank prints the message); 77: the backend cannot run here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <string>
#include <vector>

#include "apps/backend_name.hpp"
#include "apps/grouped.hpp"
#include "apps/parallel_lookup.hpp"
#include "reference/backward.hpp"
#include "core/check.hpp"
#include "reference/combine.hpp"
#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/init.hpp"
#include "reference/params.hpp"
#include "reference/vocab_parallel.hpp"
#include "core/vocab_shard.hpp"

namespace {

using namespace andrea;

struct Options {
  std::string config = "andrea-120m";
  std::int64_t vocab_size = 0;  // 0: the config's
  std::vector<std::int32_t> ids;
  std::int64_t length = 0;      // 0: T ids of the example sequence
  std::int64_t batch = 1;
  std::int64_t repeat = 0;      // 0: one step, no timing table
  std::uint64_t seed = default_seed;
  std::string backend = "cpu";
  int bad_id_on_rank = -1;      // a test of the vote: this rank alone gets a bad id
};

struct Ranks {
  int rank = 0;
  int size = 1;
};

using cli::grouped;

/// Exit codes a vote can end with.
constexpr int kOk = 0, kFailed = 1, kBadInput = 2, kSkipped = 77;

/// Runs a local step, then every rank learns the worst outcome on any rank (MPI_MAX of
/// the exit codes). A rank whose step threw prints why; the others stop quietly.
/// Returns kOk when every rank succeeded.
int vote(const Ranks& ranks, const std::function<void()>& step) {
  int mine = kOk;
  try {
    step();
  } catch (const InputError& e) {
    fmt::print(stderr, "andrea-embed-parallel: rank {}: error: {}\n", ranks.rank, e.what());
    mine = kBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "andrea-embed-parallel: rank {}: failed: {}\n", ranks.rank, e.what());
    mine = kFailed;
  }
  int all = kOk;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (all != kOk && mine == kOk) {
    fmt::print(stderr, "andrea-embed-parallel: rank {}: stopping: another rank failed this step\n", ranks.rank);
  }
  return all;
}

/// True on every rank when `ok` is true on every rank.
bool all_true(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

bool same_bits(ConstFloatView a, ConstFloatView b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())) == 0;
}

parallel::LookupBackend lookup_backend(const std::string& name) {
  if (name == "cpu") return {&reference::vocab_parallel_lookup, [] { return std::string(); }};
#if defined(ANDREA_HAVE_CUDA_CUDASIM)
  if (name == "cudasim") return parallel::cuda_lookup_cudasim();
#endif
#if defined(ANDREA_HAVE_CUDA_GPU)
  if (name == "gpu") return parallel::cuda_lookup_gpu();
#endif
  return {nullptr, [] { return std::string("this build has no such backend (built without it)"); }};
}

// Time of each phase of one step, in seconds: on this rank, then the slowest rank's.
struct Phases {
  double lookup = 0, allreduce = 0, add = 0, backward = 0;
};

int run(const Options& o, const Ranks& ranks) {
  // --- What every rank computes alone, then votes on ------------------------------
  Config config{};
  VocabShard shard;
  std::vector<std::int32_t> ids;
  std::int64_t n = 0;
  parallel::LookupBackend backend;
  int status = vote(ranks, [&] {
    config = config_by_name(o.config);
    if (o.vocab_size > 0) config.vocab_size = o.vocab_size;
    validate(config);
    shard = vocab_shard(config.vocab_size, ranks.rank, ranks.size);  // refuses a rank without rows
    std::vector<std::int32_t> seq = o.ids;
    if (seq.empty()) {  // the lesson's example sequence (modulo V when --vocab-size is below 7,302)
      seq = example_ids(o.length > 0 ? o.length : config.context_length,
                        std::max<std::int64_t>(config.vocab_size, 7302), o.seed);
      for (std::int32_t& id : seq) id = static_cast<std::int32_t>(id % config.vocab_size);
    }
    n = static_cast<std::int64_t>(seq.size());
    check::sequence_length(n, config.context_length);
    if (o.batch < 1) throw InputError(fmt::format("--batch {} must be at least 1", o.batch));
    ids.resize(static_cast<std::size_t>(o.batch * n));
    for (std::int64_t b = 0; b < o.batch; ++b) {  // sequence b: the ids rotated by b
      for (std::int64_t t = 0; t < n; ++t) ids[static_cast<std::size_t>(b * n + t)] = seq[static_cast<std::size_t>((t + b) % n)];
    }
    if (ranks.rank == o.bad_id_on_rank) ids.back() = static_cast<std::int32_t>(config.vocab_size);
    backend = lookup_backend(o.backend);
  });
  if (status != kOk) return status;
  const std::string reason = backend.unavailable();  // e.g. no GPU: every rank skips together
  if (!all_true(reason.empty())) {
    if (!reason.empty()) {
      fmt::print(stderr, "andrea-embed-parallel: rank {}: skipped: backend {} cannot run here: {}\n",
                 ranks.rank, o.backend, reason);
    }
    return kSkipped;
  }

  const std::int64_t d = config.d_model, rows = o.batch * n;
  const TokenIdBatch batch(ids.data(), o.batch, n);
  Matrix wte_shard(shard.rows, d), wpe(config.context_length, d);
  Matrix x(rows, d), dwte_shard(shard.rows, d), dwpe(config.context_length, d);
  // This rank's rows of the one shared init: element (id, c) is init_value(seed, token,
  // id * d + c), the same number as in the full table. Padding rows stay zero.
  for (std::int64_t l = 0; l < shard.real_rows; ++l) {
    for (std::int64_t c = 0; c < d; ++c) {
      wte_shard(l, c) = init_value(o.seed, Table::token, (shard.first + l) * d + c, d);
    }
  }
  for (std::int64_t i = 0; i < wpe.rows() * d; ++i) {
    wpe.view().flat()[static_cast<std::size_t>(i)] = init_value(o.seed, Table::position, i, d);
  }

  // --- One step, repeated for timing -----------------------------------------------
  Phases mine;
  const std::int64_t steps = std::max<std::int64_t>(o.repeat, 1);
  for (std::int64_t s = 0; s < steps + (o.repeat > 0 ? 1 : 0); ++s) {  // + a warm-up when timing
    const bool timed = o.repeat == 0 || s > 0;
    std::fill(dwte_shard.view().flat().begin(), dwte_shard.view().flat().end(), 0.0f);
    std::fill(dwpe.view().flat().begin(), dwpe.view().flat().end(), 0.0f);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    // The lookup checks the ids against the real V (not the padded one) on every rank.
    status = vote(ranks, [&] { backend.lookup(wte_shard, shard, batch, x); });
    if (status != kOk) return status;
    double t1 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, x.view().data(), static_cast<int>(x.view().size()), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    for (std::int64_t q = 0; q < rows; ++q) {  // the position, added once, after the sum
      const std::span<float> xq = x.view().row(q);
      const std::span<const float> pos = wpe.row(q % n);
      for (std::int64_t c = 0; c < d; ++c) xq[c] += pos[c];
    }
    double t3 = MPI_Wtime();
    status = vote(ranks, [&] {
      reference::vocab_parallel_wte_backward(batch, x, shard, dwte_shard);  // dout = x
      reference::wpe_backward(x, n, dwpe);
    });
    if (status != kOk) return status;
    double t4 = MPI_Wtime();
    if (timed) {
      mine.lookup += t1 - t0, mine.allreduce += t2 - t1, mine.add += t3 - t2, mine.backward += t4 - t3;
    }
  }

  // --- What each rank holds, and what one step sends -----------------------------
  const std::int64_t owned = std::count_if(ids.begin(), ids.end(), [&](std::int32_t id) { return shard.owns(id); });
  const std::int64_t info[] = {shard.first, shard.end(), shard.real_rows, owned};
  std::vector<std::int64_t> all_info(4 * static_cast<std::size_t>(ranks.size));
  MPI_Gather(info, 4, MPI_INT64_T, all_info.data(), 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
  const std::int64_t payload = rows * d * 4;
  if (ranks.rank == 0) {
    const std::int64_t p = ranks.size;
    fmt::print("andrea-embed-parallel: {}, V = {}, d_model = {}, {} rank{}, backend {}\n", config.name,
               grouped(config.vocab_size), d, p, p > 1 ? "s" : "", o.backend);
    fmt::print("  ids       ({}, {}): {} token ids, every rank holds them all\n", o.batch, n, grouped(rows));
    fmt::print("  padding   V padded to {} (a multiple of 128 x {} = {}), V_p = {} rows per rank\n",
               grouped(shard.padded_vocab), p, 128 * p, grouped(shard.rows));
    for (int r = 0; r < ranks.size; ++r) {
      const std::int64_t* i = &all_info[4 * static_cast<std::size_t>(r)];
      fmt::print("  rank {}    rows [{}, {}): {} real, {} padding; wte shard {} bytes, dwte shard {} bytes; "
                 "owns {} of {} ids\n",
                 r, i[0], i[1], grouped(i[2]), grouped(i[1] - i[0] - i[2]), grouped(shard.rows * d * 4),
                 grouped(shard.rows * d * 4), grouped(i[3]), grouped(rows));
    }
    fmt::print("  replicated on every rank: wpe {} bytes, x {} bytes\n", grouped(config.context_length * d * 4),
               grouped(payload));
    fmt::print("  communication per step: forward 1 all-reduce (sum) of {} x {} x 4 = {} bytes; "
               "a ring sends 2(p-1)/p of it per rank = {} bytes; backward none (dout is replicated)\n",
               grouped(rows), d, grouped(payload), grouped(2 * (p - 1) * payload / p));
  }

  // --- The check against one process (rank 0 holds the whole tables) -------------
  Matrix gathered(ranks.rank == 0 ? shard.padded_vocab : 0, d);
  MPI_Gather(dwte_shard.view().data(), static_cast<int>(shard.rows * d), MPI_FLOAT, gathered.view().data(),
             static_cast<int>(shard.rows * d), MPI_FLOAT, 0, MPI_COMM_WORLD);
  Matrix x0 = x, dwpe0 = dwpe;  // rank 0's x and dwpe, sent to every rank
  MPI_Bcast(x0.view().data(), static_cast<int>(x0.view().size()), MPI_FLOAT, 0, MPI_COMM_WORLD);
  MPI_Bcast(dwpe0.view().data(), static_cast<int>(dwpe0.view().size()), MPI_FLOAT, 0, MPI_COMM_WORLD);
  bool x_ok = same_bits(x, x0), dwte_ok = true, dwpe_ok = same_bits(dwpe, dwpe0);
  double one_forward = 0, one_backward = 0;
  status = vote(ranks, [&] {
    if (ranks.rank != 0) return;
    Matrix wte(config.vocab_size, d), wpe_full(config.context_length, d), expected(rows, d);
    reference::materialize(config, o.seed, wte, wpe_full);
    Matrix dwte(config.vocab_size, d), dwpe_full(config.context_length, d);
    for (std::int64_t s = 0; s < std::max<std::int64_t>(o.repeat, 1); ++s) {  // one process, timed
      std::fill(dwte.view().flat().begin(), dwte.view().flat().end(), 0.0f);
      std::fill(dwpe_full.view().flat().begin(), dwpe_full.view().flat().end(), 0.0f);
      const double t0 = MPI_Wtime();
      reference::combine_batch(wte, wpe_full, batch, expected);
      const double t1 = MPI_Wtime();
      reference::embedding_backward(batch, expected, dwte, dwpe_full);
      one_forward += t1 - t0, one_backward += MPI_Wtime() - t1;
    }
    x_ok = x_ok && same_bits(x, expected);
    dwte_ok = same_bits(ConstFloatView(gathered.view().data(), config.vocab_size, d), dwte);
    for (std::int64_t r = config.vocab_size; r < gathered.rows(); ++r) {  // padding: never touched
      for (const float g : gathered.row(r)) dwte_ok = dwte_ok && g == 0.0f;
    }
    dwpe_ok = dwpe_ok && same_bits(dwpe, dwpe_full);
  });
  if (status != kOk) return status;
  x_ok = all_true(x_ok), dwte_ok = all_true(dwte_ok), dwpe_ok = all_true(dwpe_ok);

  Phases slowest;
  MPI_Reduce(&mine, &slowest, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (ranks.rank == 0) {
    const auto yes = [](bool ok) { return ok ? "yes" : "NO"; };
    fmt::print("  check     x bit-identical to the one-process combine, on every rank: {}\n", yes(x_ok));
    fmt::print("  check     dwte shards gathered = the one-process gradient bit for bit, padding rows zero: {}\n",
               yes(dwte_ok));
    fmt::print("  check     dwpe the same on every rank and = the one-process gradient: {}\n", yes(dwpe_ok));
    if (o.repeat > 0) {
      const double k = 1e3 / static_cast<double>(o.repeat);  // ms per step
      const double forward = slowest.lookup + slowest.allreduce + slowest.add;
      fmt::print("  time      per step, slowest rank, mean of {}: forward {:.3f} ms (lookup {:.3f}, "
                 "all-reduce {:.3f} = {:.0f}%, + wpe {:.3f}), backward {:.3f} ms\n",
                 o.repeat, forward * k, slowest.lookup * k, slowest.allreduce * k,
                 100.0 * slowest.allreduce / forward, slowest.add * k, slowest.backward * k);
      fmt::print("  time      one process (rank 0, whole table): forward {:.3f} ms, backward {:.3f} ms\n",
                 one_forward * k, one_backward * k);
    }
  }
  return x_ok && dwte_ok && dwpe_ok ? kOk : kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Ranks ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &ranks.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks.size);

  CLI::App app{
      "Lesson 10: the token table cut by vocabulary across MPI ranks (Megatron-LM's\n"
      "VocabParallelEmbedding). Run it under mpirun: mpirun -np 4 andrea-embed-parallel"};
  Options o;
  app.add_option("--config", o.config, "andrea-120m (default) or gpt2-124m")
      ->check(CLI::IsMember({"andrea-120m", "gpt2-124m"}));
  app.add_option("--vocab-size", o.vocab_size, "override V (a small V shows the refusal of a p)")
      ->check(CLI::PositiveNumber);
  app.add_option("--ids", o.ids, "token ids, comma-separated (default: the lesson's example sequence)")
      ->delimiter(',');
  app.add_option("--length", o.length, "ids of the example sequence (default T)")->check(CLI::PositiveNumber);
  app.add_option("--batch", o.batch, "B sequences, sequence b the ids rotated by b (default 1)")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeat", o.repeat, "time this many steps after a warm-up and print the phases")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "seed of the Philox init and of the example ids (default 1337)");
  app.add_option("--backend", o.backend, "masked lookup: cpu (default), cudasim or gpu")
      ->check([](const std::string& name) { return cli::renamed_backend(name); })
      ->check(CLI::IsMember({"cpu", "cudasim", "gpu"}));
  app.add_option("--bad-id-on-rank", o.bad_id_on_rank,
                 "testing the vote: this rank alone replaces its last id by V; every rank must stop");
  int code = kOk;
  try {
    app.parse(argc, argv);  // the same argv on every rank: all ranks agree without talking
    code = run(o, ranks);
  } catch (const CLI::ParseError& e) {
    code = ranks.rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? kOk : kBadInput);
    if (code != kOk) code = kBadInput;
  }
  MPI_Finalize();
  return code;
}
