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
// Before any collective of the step, the ranks agree: every rank's command line must
// parse, and every rank must hold rank 0's options (an MPMD launch such as
// `mpirun -np 1 P --length 16 : -np 1 P --length 32` is refused by all ranks, with the
// option that differs). Every local step then ends in a vote (one MPI_Allreduce of an
// int): a rank that fails - a bad id, a refused p, tables too large for MPI or for the
// memory, a failed allocation, an exception - makes every rank stop together, so no
// rank is left waiting in a collective (--bad-id-on-rank R shows it: rank R alone
// fails). Exit 0: checks pass; 1: a check or a step failed; 2: bad input (the rank that
// found it prints the message); 77: the backend cannot run here.
#include <mpi.h>

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "apps/backend_name.hpp"
#include "apps/ids_input.hpp"
#include "apps/int_option.hpp"
#include "apps/parallel_lookup.hpp"
#include "apps/printable.hpp"
#include "apps/standard_streams.hpp"
#include "core/check.hpp"
#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/init.hpp"
#include "core/numbers.hpp"
#include "core/vocab_shard.hpp"
#include "reference/backward.hpp"
#include "reference/combine.hpp"
#include "reference/params.hpp"
#include "reference/vocab_parallel.hpp"

namespace {

using namespace andrea;

struct Options {
  std::string config = "andrea-120m";
  std::int64_t vocab_size = 0;  // 0: the config's
  std::string ids;              // given: token ids, comma-separated
  bool has_ids = false, help = false;
  std::int64_t length = 0;  // 0: T ids of the example sequence
  std::int64_t batch = 1;
  std::int64_t repeat = 0;  // 0: one step, no timing table
  std::uint64_t seed = default_seed;
  std::string backend = "cpu";
  std::int64_t bad_id_on_rank = -1;  // a test of the vote: this rank alone gets a bad id
};

struct Ranks {
  int rank = 0;
  int size = 1;
};

/// Exit codes a vote can end with.
constexpr int kOk = 0, kFailed = 1, kBadInput = 2, kSkipped = 77;

/// The most steps --repeat times: a count that feeds a loop is bounded where it is read.
constexpr std::int64_t kMaxRepeat = 1'000'000;

/// The lesson's example sequence starts 256, 1842, 7301 (core/init.hpp): it needs a V of
/// at least 7,302; below that its ids are taken modulo V.
constexpr std::int64_t kExampleVocab = 7302;

/// Runs a local step, then every rank learns the worst outcome on any rank (MPI_MAX of
/// the exit codes). A rank whose step threw prints why; the others say `others`.
/// Returns kOk when every rank succeeded.
int vote(const Ranks& ranks, const std::function<void()>& step,
         std::string_view others = "another rank failed this step") {
  int mine = kOk;
  try {
    step();
  } catch (const InputError& e) {
    fmt::print(stderr, "andrea-embed-parallel: rank {}: error: {}\n", ranks.rank,
               cli::printable(e.what()));
    mine = kBadInput;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr,
               "andrea-embed-parallel: rank {}: error: out of memory: the tables do not fit (a "
               "smaller --vocab-size, --batch or --length, or more ranks)\n",
               ranks.rank);
    mine = kBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "andrea-embed-parallel: rank {}: failed: {}\n", ranks.rank,
               cli::printable(e.what()));
    mine = kFailed;
  }
  int all = kOk;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (all != kOk && mine == kOk) {
    fmt::print(stderr, "andrea-embed-parallel: rank {}: stopping: {}\n", ranks.rank, others);
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

// --- 1. The ranks agree on their options -------------------------------------------

/// The options as (name, value), in one order: what every rank must hold alike.
std::vector<std::pair<std::string, std::string>> settings(const Options& o) {
  return {{"--config", o.config},
          {"--vocab-size", o.vocab_size > 0 ? std::to_string(o.vocab_size) : "(the config's)"},
          {"--ids", o.has_ids ? o.ids : "(the example sequence)"},
          {"--length", o.length > 0 ? std::to_string(o.length) : "(T)"},
          {"--batch", std::to_string(o.batch)},
          {"--repeat", std::to_string(o.repeat)},
          {"--seed", std::to_string(o.seed)},
          {"--backend", o.backend},
          {"--bad-id-on-rank", std::to_string(o.bad_id_on_rank)},
          {"--help", o.help ? "given" : "not given"}};
}

std::string serialized(const Options& o) {
  std::string out;
  for (const auto& [name, value] : settings(o)) out += name + '\0' + value + '\0';
  return out;
}

/// Every rank compares its options with rank 0's (one broadcast of rank 0's, before any
/// other collective): a rank that differs names the option; every rank stops.
int agree(const Options& o, const Ranks& ranks) {
  const std::string mine = serialized(o);
  std::uint64_t size = mine.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::string first(static_cast<std::size_t>(size), '\0');
  if (ranks.rank == 0) first = mine;
  MPI_Bcast(first.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
  return vote(
      ranks,
      [&] {
        if (mine == first) return;
        const auto ours = settings(o);
        std::vector<std::string> fields;  // rank 0's values, in the same order
        for (std::size_t at = 0; at < first.size(); at = first.find('\0', at) + 1) {
          fields.push_back(first.substr(at, first.find('\0', at) - at));
        }
        for (std::size_t i = 0; i < ours.size(); ++i) {
          const std::string theirs = 2 * i + 1 < fields.size() ? fields[2 * i + 1] : "?";
          if (ours[i].second != theirs) {
            throw InputError(
                fmt::format("this rank has {} {}, rank 0 has {} {}: every rank runs the same step "
                            "and must be started with the same options",
                            ours[i].first, ours[i].second, ours[i].first, theirs));
          }
        }
      },
      "another rank was started with other options than rank 0");
}

// --- 2. What every rank computes alone: the sizes, the ids, the tables -------------

struct Run {
  Config config{};
  VocabShard shard;
  std::vector<std::int32_t> ids;  // (B, n)
  std::int64_t n = 0;
  parallel::LookupBackend backend;
  Matrix wte_shard, wpe, x, dwte_shard, dwpe;
};

/// a * b, or an InputError naming `what` when it does not fit int64.
std::int64_t product(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    throw InputError(fmt::format("{} is more than 2^63", what));
  return out;
}

/// A count of floats one MPI call sends: at most INT_MAX.
void fits_one_call(std::int64_t floats, std::string_view what) {
  if (floats > INT_MAX) {
    throw InputError(
        fmt::format("{} is {} floats, more than the {} one MPI call sends: a smaller --batch, "
                    "--length or --vocab-size, or more ranks",
                    what, grouped(floats), grouped(INT_MAX)));
  }
}

/// The bytes this rank's tables take, refused when more than the machine's memory
/// (the allocation could succeed and the first write be killed by the OOM killer).
void fits_memory(std::int64_t bytes, const Ranks& ranks) {
  const double memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
                        static_cast<double>(::sysconf(_SC_PAGE_SIZE));
  if (memory > 0 && static_cast<double>(bytes) > memory) {
    throw InputError(
        fmt::format("the tables of rank {} take {} bytes, more than the {} bytes of this machine's "
                    "memory: a smaller --vocab-size, --batch or --length, or more ranks",
                    ranks.rank, grouped(bytes), grouped(static_cast<std::int64_t>(memory))));
  }
}

/// The ids of the step: --ids or the example sequence, as B sequences (sequence b the
/// ids rotated by b).
std::vector<std::int32_t> batch_ids(const Options& o, const Run& r, std::int64_t* n) {
  std::vector<std::int32_t> seq;
  if (o.has_ids) {
    seq = cli::parse_ids(o.ids, "--ids");
  } else {  // the lesson's example sequence (modulo V when V is below kExampleVocab)
    seq = example_ids(o.length > 0 ? o.length : r.config.context_length,
                      std::max<std::int64_t>(r.config.vocab_size, kExampleVocab), o.seed);
    for (std::int32_t& id : seq) id = static_cast<std::int32_t>(id % r.config.vocab_size);
  }
  *n = static_cast<std::int64_t>(seq.size());
  check::sequence_length(*n, r.config.context_length);
  const std::int64_t rows = product(o.batch, *n, "--batch x the sequence length");
  fits_one_call(product(rows, r.config.d_model, "x"),
                "x, the all-reduce of B x n x d_model");  // before the ids' memory
  std::vector<std::int32_t> ids(static_cast<std::size_t>(rows));
  for (std::int64_t b = 0; b < o.batch; ++b) {
    for (std::int64_t t = 0; t < *n; ++t)
      ids[static_cast<std::size_t>(b * *n + t)] = seq[static_cast<std::size_t>((t + b) % *n)];
  }
  return ids;
}

int set_up(const Options& o, const Ranks& ranks, Run& r) {
  return vote(ranks, [&] {
    r.config = config_by_name(o.config);
    if (o.length > r.config.context_length) {
      throw InputError(fmt::format("--length {} is more than the context length T = {} of {}",
                                   o.length, r.config.context_length, r.config.name));
    }
    if (o.bad_id_on_rank >= ranks.size) {  // -1: none; a rank that does not exist tests nothing
      throw InputError(fmt::format("--bad-id-on-rank {} is outside [-1, {}] ({} rank{})",
                                   o.bad_id_on_rank, ranks.size - 1, ranks.size,
                                   ranks.size > 1 ? "s" : ""));
    }
    if (o.vocab_size > 0) r.config.vocab_size = o.vocab_size;
    validate(r.config);
    r.shard =
        vocab_shard(r.config.vocab_size, ranks.rank, ranks.size);  // refuses a rank without rows
    r.ids = batch_ids(o, r, &r.n);
    if (ranks.rank == o.bad_id_on_rank)
      r.ids.back() = static_cast<std::int32_t>(r.config.vocab_size);
    r.backend = lookup_backend(o.backend);

    const std::int64_t d = r.config.d_model, T = r.config.context_length;
    const std::int64_t rows = static_cast<std::int64_t>(r.ids.size());
    fits_one_call(product(r.shard.rows, d, "a wte shard"), "a wte shard, gathered on rank 0");
    fits_one_call(product(T, d, "wpe"), "wpe");
    // wte and dwte shards, wpe and dwpe with rank 0's copies, x and rank 0's copy; rank 0 also
    // holds the whole tables of the one-process check and the gathered dwte.
    std::int64_t floats = 2 * r.shard.rows * d + 4 * T * d + 2 * rows * d;
    if (ranks.rank == 0)
      floats += 2 * r.config.vocab_size * d + r.shard.padded_vocab * d + 2 * T * d + rows * d;
    fits_memory(product(floats, 4, "the tables' bytes"), ranks);
    r.wte_shard = Matrix(r.shard.rows, d), r.dwte_shard = Matrix(r.shard.rows, d);
    r.wpe = Matrix(T, d), r.dwpe = Matrix(T, d), r.x = Matrix(rows, d);
  });
}

/// This rank's rows of the one shared init: element (id, c) is init_value(seed, token,
/// id * d + c), the same number as in the full table. Padding rows stay zero.
void init_tables(const Options& o, Run& r) {
  const std::int64_t d = r.config.d_model;
  for (std::int64_t l = 0; l < r.shard.real_rows; ++l) {
    for (std::int64_t c = 0; c < d; ++c) {
      r.wte_shard(l, c) = init_value(o.seed, Table::token, (r.shard.first + l) * d + c, d);
    }
  }
  for (std::int64_t i = 0; i < r.wpe.rows() * d; ++i) {
    r.wpe.view().flat()[static_cast<std::size_t>(i)] = init_value(o.seed, Table::position, i, d);
  }
}

// --- 3. One step, repeated for timing ----------------------------------------------

// Time of each phase of one step, in seconds: on this rank, then the slowest rank's.
struct Phases {
  double lookup = 0, allreduce = 0, add = 0, backward = 0;
};

int steps(const Options& o, const Ranks& ranks, Run& r, Phases& mine) {
  const TokenIdBatch batch(r.ids.data(), o.batch, r.n);
  const std::int64_t d = r.config.d_model, rows = o.batch * r.n;
  const std::int64_t count = std::max<std::int64_t>(o.repeat, 1);
  for (std::int64_t s = 0; s < count + (o.repeat > 0 ? 1 : 0); ++s) {  // + a warm-up when timing
    const bool timed = o.repeat == 0 || s > 0;
    std::fill(r.dwte_shard.view().flat().begin(), r.dwte_shard.view().flat().end(), 0.0f);
    std::fill(r.dwpe.view().flat().begin(), r.dwpe.view().flat().end(), 0.0f);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    // The lookup checks the ids against the real V (not the padded one) on every rank.
    if (const int status = vote(ranks, [&] { r.backend.lookup(r.wte_shard, r.shard, batch, r.x); });
        status != kOk) {
      return status;
    }
    const double t1 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, r.x.view().data(), static_cast<int>(r.x.view().size()), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
    const double t2 = MPI_Wtime();
    for (std::int64_t q = 0; q < rows; ++q) {  // the position, added once, after the sum
      const std::span<float> xq = r.x.view().row(q);
      const std::span<const float> pos = r.wpe.row(q % r.n);
      for (std::int64_t c = 0; c < d; ++c) xq[c] += pos[c];
    }
    const double t3 = MPI_Wtime();
    const int status = vote(ranks, [&] {
      reference::vocab_parallel_wte_backward(batch, r.x, r.shard, r.dwte_shard);  // dout = x
      reference::wpe_backward(r.x, r.n, r.dwpe);
    });
    if (status != kOk) return status;
    const double t4 = MPI_Wtime();
    if (timed)
      mine.lookup += t1 - t0, mine.allreduce += t2 - t1, mine.add += t3 - t2,
          mine.backward += t4 - t3;
  }
  return kOk;
}

// --- 4. What each rank holds, and what one step sends ------------------------------

void print_layout(const Options& o, const Ranks& ranks, const Run& r) {
  const std::int64_t d = r.config.d_model, rows = o.batch * r.n;
  const std::int64_t owned =
      std::count_if(r.ids.begin(), r.ids.end(), [&](std::int32_t id) { return r.shard.owns(id); });
  const std::int64_t info[] = {r.shard.first, r.shard.end(), r.shard.real_rows, owned};
  std::vector<std::int64_t> all_info(4 * static_cast<std::size_t>(ranks.size));
  MPI_Gather(info, 4, MPI_INT64_T, all_info.data(), 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (ranks.rank != 0) return;
  const std::int64_t payload = rows * d * 4, p = ranks.size;
  cli::print("andrea-embed-parallel: {}, V = {}, d_model = {}, {} rank{}, backend {}\n",
             r.config.name, grouped(r.config.vocab_size), d, p, p > 1 ? "s" : "", o.backend);
  cli::print("  ids       ({}, {}): {} token ids, every rank holds them all\n", o.batch, r.n,
             grouped(rows));
  cli::print("  padding   V padded to {} (a multiple of 128 x {} = {}), V_p = {} rows per rank\n",
             grouped(r.shard.padded_vocab), p, 128 * p, grouped(r.shard.rows));
  for (int k = 0; k < ranks.size; ++k) {
    const std::int64_t* i = &all_info[4 * static_cast<std::size_t>(k)];
    cli::print(
        "  rank {}    rows [{}, {}): {} real, {} padding; wte shard {} bytes, dwte shard {} bytes; "
        "owns {} of {} ids\n",
        k, i[0], i[1], grouped(i[2]), grouped(i[1] - i[0] - i[2]), grouped(r.shard.rows * d * 4),
        grouped(r.shard.rows * d * 4), grouped(i[3]), grouped(rows));
  }
  cli::print("  replicated on every rank: wpe {} bytes, x {} bytes\n",
             grouped(r.config.context_length * d * 4), grouped(payload));
  cli::print(
      "  communication per step: forward 1 all-reduce (sum) of {} x {} x 4 = {} bytes; "
      "a ring sends 2(p-1)/p of it per rank = {} bytes; backward none (dout is replicated)\n",
      grouped(rows), d, grouped(payload), grouped(2 * (p - 1) * payload / p));
}

// --- 5. The check against one process (rank 0 holds the whole tables) ------------

struct Checks {
  bool x = false, dwte = false, dwpe = false;
  double one_forward = 0, one_backward = 0;  // rank 0's one-process step, summed over the repeats
};

int check(const Options& o, const Ranks& ranks, const Run& r, Checks& out) {
  const std::int64_t d = r.config.d_model, rows = o.batch * r.n;
  const TokenIdBatch batch(r.ids.data(), o.batch, r.n);
  Matrix gathered(ranks.rank == 0 ? r.shard.padded_vocab : 0, d);
  MPI_Gather(r.dwte_shard.view().data(), static_cast<int>(r.shard.rows * d), MPI_FLOAT,
             gathered.view().data(), static_cast<int>(r.shard.rows * d), MPI_FLOAT, 0,
             MPI_COMM_WORLD);
  Matrix x0 = r.x, dwpe0 = r.dwpe;  // rank 0's x and dwpe, sent to every rank
  MPI_Bcast(x0.view().data(), static_cast<int>(x0.view().size()), MPI_FLOAT, 0, MPI_COMM_WORLD);
  MPI_Bcast(dwpe0.view().data(), static_cast<int>(dwpe0.view().size()), MPI_FLOAT, 0,
            MPI_COMM_WORLD);
  out.x = same_bits(r.x, x0), out.dwte = true, out.dwpe = same_bits(r.dwpe, dwpe0);
  const int status = vote(ranks, [&] {
    if (ranks.rank != 0) return;
    Matrix wte(r.config.vocab_size, d), wpe(r.config.context_length, d), expected(rows, d);
    reference::materialize(r.config, o.seed, wte, wpe);
    Matrix dwte(r.config.vocab_size, d), dwpe(r.config.context_length, d);
    for (std::int64_t s = 0; s < std::max<std::int64_t>(o.repeat, 1); ++s) {  // one process, timed
      std::fill(dwte.view().flat().begin(), dwte.view().flat().end(), 0.0f);
      std::fill(dwpe.view().flat().begin(), dwpe.view().flat().end(), 0.0f);
      const double t0 = MPI_Wtime();
      reference::combine_batch(wte, wpe, batch, expected);
      const double t1 = MPI_Wtime();
      reference::embedding_backward(batch, expected, dwte, dwpe);
      out.one_forward += t1 - t0, out.one_backward += MPI_Wtime() - t1;
    }
    out.x = out.x && same_bits(r.x, expected);
    out.dwte = same_bits(ConstFloatView(gathered.view().data(), r.config.vocab_size, d), dwte);
    for (std::int64_t row = r.config.vocab_size; row < gathered.rows();
         ++row) {  // padding: never touched
      for (const float g : gathered.row(row)) out.dwte = out.dwte && g == 0.0f;
    }
    out.dwpe = out.dwpe && same_bits(r.dwpe, dwpe);
  });
  if (status != kOk) return status;
  out.x = all_true(out.x), out.dwte = all_true(out.dwte), out.dwpe = all_true(out.dwpe);
  return kOk;
}

void print_checks(const Options& o, const Ranks& ranks, const Checks& c, const Phases& mine) {
  Phases slowest;
  MPI_Reduce(&mine, &slowest, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (ranks.rank != 0) return;
  const auto yes = [](bool ok) { return ok ? "yes" : "NO"; };
  cli::print("  check     x bit-identical to the one-process combine, on every rank: {}\n",
             yes(c.x));
  cli::print(
      "  check     dwte shards gathered = the one-process gradient bit for bit, padding rows zero: "
      "{}\n",
      yes(c.dwte));
  cli::print("  check     dwpe the same on every rank and = the one-process gradient: {}\n",
             yes(c.dwpe));
  if (o.repeat > 0) {
    const double k = 1e3 / static_cast<double>(o.repeat);  // ms per step
    const double forward = slowest.lookup + slowest.allreduce + slowest.add;
    cli::print(
        "  time      per step, slowest rank, mean of {}: forward {:.3f} ms (lookup {:.3f}, "
        "all-reduce {:.3f} = {:.0f}%, + wpe {:.3f}), backward {:.3f} ms\n",
        o.repeat, forward * k, slowest.lookup * k, slowest.allreduce * k,
        100.0 * slowest.allreduce / forward, slowest.add * k, slowest.backward * k);
    cli::print(
        "  time      one process (rank 0, whole table): forward {:.3f} ms, backward {:.3f} ms\n",
        c.one_forward * k, c.one_backward * k);
  }
}

int run(const Options& o, const Ranks& ranks) {
  Run r;
  if (const int status = set_up(o, ranks, r); status != kOk) return status;
  // No GPU: every rank skips together; a GPU that fails: every rank fails.
  std::string reason;
  if (const int status = vote(ranks, [&] { reason = r.backend.unavailable(); }); status != kOk) {
    return status;
  }
  if (!all_true(reason.empty())) {
    if (!reason.empty()) {
      fmt::print(stderr,
                 "andrea-embed-parallel: rank {}: skipped: backend {} cannot run here: {}\n",
                 ranks.rank, o.backend, reason);
    }
    return kSkipped;
  }
  init_tables(o, r);
  Phases mine;
  if (const int status = steps(o, ranks, r, mine); status != kOk) return status;
  print_layout(o, ranks, r);
  Checks checks;
  if (const int status = check(o, ranks, r, checks); status != kOk) return status;
  print_checks(o, ranks, checks, mine);
  return checks.x && checks.dwte && checks.dwpe ? kOk : kFailed;
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--config", o.config, "andrea-120m or gpt2-124m")
      ->check(CLI::IsMember({"andrea-120m", "gpt2-124m"}))
      ->capture_default_str();
  cli::add_int_option<std::int64_t>(app, "--vocab-size", o.vocab_size, 1, INT32_MAX,
                                    "override V (a small V shows the refusal of a p)")
      ->default_str("the config's");
  CLI::Option* ids = app.add_option("--ids", o.ids, "token ids, comma- or space-separated")
                         ->default_str("the lesson's example sequence");
  const std::int64_t longest =
      std::max(config_by_name("andrea-120m").context_length,  // T of the presets
               config_by_name("gpt2-124m").context_length);
  cli::add_int_option<std::int64_t>(app, "--length", o.length, 1, longest,
                                    "ids of the example sequence (at most T)")
      ->default_str("T")
      ->excludes(ids);  // --ids is the sequence: it has no length to choose
  cli::add_int_option<std::int64_t>(app, "--batch", o.batch, 1, INT64_MAX,
                                    "B sequences, sequence b the ids rotated by b");
  cli::add_int_option<std::int64_t>(app, "--repeat", o.repeat, 0, kMaxRepeat,
                                    fmt::format("time this many steps after a warm-up and print "
                                                "the phases, at most {}",
                                                grouped(kMaxRepeat)));
  cli::add_int_option<std::uint64_t>(app, "--seed", o.seed, 0, UINT64_MAX,
                                     "seed of the Philox init and of the example ids");
  app.add_option("--backend", o.backend, "masked lookup: cpu, cudasim or gpu")
      ->check([](const std::string& name) { return cli::renamed_backend(name); })
      ->check(CLI::IsMember({"cpu", "cudasim", "gpu"}))
      ->capture_default_str();
  cli::add_int_option<std::int64_t>(
      app, "--bad-id-on-rank", o.bad_id_on_rank, -1, INT32_MAX,
      "testing the vote: this rank alone replaces its last id by V; every rank must stop")
      ->default_str("none");
}

/// The exit status once standard output is flushed and closed: a write that failed (a full
/// disk, a closed stream) makes a run that passed exit 1 (kFailed), with the reason.
int finish(int code, const Ranks& ranks) {
  try {
    cli::close_stdout();
  } catch (const OutputError& e) {
    fmt::print(stderr, "andrea-embed-parallel: rank {}: error: {}\n", ranks.rank, e.what());
    return code == kOk ? kFailed : code;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  cli::reserve_standard_streams();  // before MPI opens its files and sockets
  // Rank 0's report (a few KiB) is held until finish(), after every collective: a write that
  // fails there cannot leave the other ranks waiting in one.
  static char report[1 << 20];
  std::setvbuf(stdout, report, _IOFBF, sizeof report);
  MPI_Init(&argc, &argv);
  Ranks ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &ranks.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks.size);

  CLI::App app{
      "Lesson 10: the token table cut by vocabulary across MPI ranks (Megatron-LM's\n"
      "VocabParallelEmbedding). Run it under mpirun: mpirun -np 4 andrea-embed-parallel"};
  Options o;
  add_options(app, o);
  // Each rank parses its own command line (an MPMD launch may give ranks different ones):
  // the outcome is voted on, then the options themselves, before any other collective.
  int code = vote(
      ranks,
      [&] {
        try {
          app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
          if (e.get_exit_code() != static_cast<int>(CLI::ExitCodes::Success)) {
            throw InputError(fmt::format("{} (see andrea-embed-parallel --help)", e.what()));
          }
          o.help = true;
        }
        o.has_ids = app.count("--ids") > 0;
      },
      "another rank's command line was refused");
  if (code == kOk) code = agree(o, ranks);
  if (code == kOk && o.help) {
    if (ranks.rank == 0) cli::print("{}", app.help());
  } else if (code == kOk) {
    code = run(o, ranks);
  }
  MPI_Finalize();
  return finish(code, ranks);
}
