// Google Benchmark timings of the C++ reference at ANDREA-120M scale
// (V = 8449, d_model = 768, T = 1024), one thread. bench/README.md explains them.
//
// BM_combine_fast and BM_combine_batch_fast time bench/fast_combine.cpp, the
// vectorised version of the same contract, on the same inputs, and
// BM_embedding_backward_fast bench/fast_backward.cpp; the program checks at start
// that both give the reference's result, element for element, and that the fast backward
// refuses a non-finite dout as the reference does (its message, nothing written).
//
// Byte convention: every benchmark reports the TRUE bytes the operation moves,
// counted once per access the algorithm makes (output written + table rows read
// + ids read):
//   lookup         n*d*4 out + n*d*4 wte rows + n*4 ids
//   combine        n*d*4 out + n*d*4 wte rows + n*d*4 wpe rows + n*4 ids
//   combine_batch  B times combine: wpe[t] is read once per sequence, as the
//                  reference loop (and PyTorch's broadcast add) reads it
//   row_norms      rows*d*4 read + rows*4 written
//   dot            2*d*4 read (the result comes back in a register)
//   embedding_backward  B*n*d*4 dout read + U*d*4 dwte rows read and written (U = distinct
//                  ids) + n*d*4 dwpe rows read and written + B*n*4 ids
// The validation passes (id range scan, finiteness scan) read their input a
// second time; that traffic is NOT counted: it is overhead, not work. The
// BM_check_* benchmarks time those passes alone, so their share can be read off.
//
// memcpy baseline: BM_memcpy copies combine_bytes(B, n) / 2 bytes from one buffer
// into another, so that bytes read + bytes written equal the bytes combine moves
// for the same (B, n). Its bytes/s counts read + written too, so the two figures
// compare directly ("% of memcpy bandwidth").

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "bench/fast_backward.hpp"
#include "bench/fast_combine.hpp"
#include "core/check.hpp"
#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/init.hpp"
#include "core/tensor.hpp"
#include "reference/backward.hpp"
#include "reference/combine.hpp"
#include "reference/dot.hpp"
#include "reference/lookup.hpp"
#include "reference/norm.hpp"

namespace {

namespace ref = andrea::reference;
using andrea::Matrix;

constexpr std::int64_t kV = andrea::andrea_120m.vocab_size;      // 8449
constexpr std::int64_t kD = andrea::andrea_120m.d_model;         // 768
constexpr std::int64_t kT = andrea::andrea_120m.context_length;  // 1024
constexpr std::int64_t kN = kT;                                  // tokens per sequence
constexpr std::int64_t kBatch = 8;

constexpr std::int64_t kF = sizeof(float);
constexpr std::int64_t kI = sizeof(std::int32_t);

// --- Byte counts (see the convention above) -----------------------------------------
constexpr std::int64_t lookup_bytes(std::int64_t n) { return n * kD * kF * 2 + n * kI; }
constexpr std::int64_t combine_bytes(std::int64_t batch, std::int64_t n) {
  return batch * (n * kD * kF * 3 + n * kI);
}
constexpr std::int64_t row_norms_bytes(std::int64_t rows) { return rows * kD * kF + rows * kF; }
constexpr std::int64_t dot_bytes(std::int64_t d) { return 2 * d * kF; }

// --- Inputs, built once ---------------------------------------------------------------
struct Inputs {
  Matrix wte{kV, kD};
  Matrix wpe{kT, kD};
  std::vector<std::int32_t> ids = andrea::example_ids(kN, kV);  // (n)
  Matrix x{kN, kD};  // combine(wte, wpe, ids): the rows row_norms and dot read

  Inputs() {
    fill(wte, andrea::Table::token);
    fill(wpe, andrea::Table::position);
    ref::combine(wte, wpe, ids, x);
  }

  static void fill(Matrix& m, andrea::Table table) {
    const andrea::FloatView v = m.view();
    for (std::int64_t i = 0; i < v.size(); ++i) {
      v.data()[i] = andrea::init_value(andrea::default_seed, table, i, kD);
    }
  }

  /// The first n example ids.
  andrea::TokenIds first(std::int64_t n) const {
    return andrea::TokenIds{ids}.first(static_cast<std::size_t>(n));
  }

  /// (B, n) ids, row-major: sequence b is the first n example ids rotated left by b*n/B.
  std::vector<std::int32_t> batch(std::int64_t batch, std::int64_t n) const {
    const andrea::TokenIds seq = first(n);
    std::vector<std::int32_t> out(static_cast<std::size_t>(batch * n));
    for (std::int64_t b = 0; b < batch; ++b) {
      const auto shift = static_cast<std::ptrdiff_t>(b * n / batch);
      std::rotate_copy(seq.begin(), seq.begin() + shift, seq.end(),
                       out.begin() + static_cast<std::ptrdiff_t>(b * n));
    }
    return out;
  }
};

const Inputs& inputs() {
  static const Inputs in;
  return in;
}

// Every benchmark: microseconds, wall-clock time.
void common(benchmark::internal::Benchmark* b) { b->Unit(benchmark::kMicrosecond)->UseRealTime(); }

// --- Lesson functions -------------------------------------------------------------------
void BM_lookup(benchmark::State& state) {
  const Inputs& in = inputs();
  const std::int64_t n = state.range(0);
  Matrix out(n, kD);
  for (auto _ : state) {
    ref::lookup(in.wte, in.first(n), out);
    benchmark::DoNotOptimize(out.view().data());
    benchmark::ClobberMemory();  // the rows written are observable
  }
  state.SetBytesProcessed(state.iterations() * lookup_bytes(n));
  state.SetItemsProcessed(state.iterations() * n);  // tokens
}
BENCHMARK(BM_lookup)->Args({kN})->ArgNames({"n"})->Apply(common);

// One body per shape, run for the plain reference and the "fast CPU" combine
// (bench/fast_combine.cpp): same inputs, same bytes.
template <class Combine>
void combine_one(benchmark::State& state, Combine combine) {
  const Inputs& in = inputs();
  const std::int64_t n = state.range(0);
  Matrix out(n, kD);
  for (auto _ : state) {
    combine(in.wte, in.wpe, in.first(n), out);
    benchmark::DoNotOptimize(out.view().data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * combine_bytes(1, n));
  state.SetItemsProcessed(state.iterations() * n);
}

template <class CombineBatch>
void combine_batch(benchmark::State& state, CombineBatch combine) {
  const Inputs& in = inputs();
  const std::int64_t batch = state.range(0), n = state.range(1);
  const std::vector<std::int32_t> flat = in.batch(batch, n);
  const andrea::TokenIdBatch ids{flat.data(), batch, n};
  Matrix out(batch * n, kD);
  for (auto _ : state) {
    combine(in.wte, in.wpe, ids, out);
    benchmark::DoNotOptimize(out.view().data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * combine_bytes(batch, n));
  state.SetItemsProcessed(state.iterations() * batch * n);
}

void BM_combine(benchmark::State& state) { combine_one(state, ref::combine); }
BENCHMARK(BM_combine)->Args({kN})->ArgNames({"n"})->Apply(common);

void BM_combine_batch(benchmark::State& state) { combine_batch(state, ref::combine_batch); }
BENCHMARK(BM_combine_batch)->Args({kBatch, kN})->ArgNames({"B", "n"})->Apply(common);

void BM_combine_fast(benchmark::State& state) { combine_one(state, andrea::bench::fast_combine); }
BENCHMARK(BM_combine_fast)->Args({kN})->ArgNames({"n"})->Apply(common);

void BM_combine_batch_fast(benchmark::State& state) {
  combine_batch(state, andrea::bench::fast_combine_batch);
}
BENCHMARK(BM_combine_batch_fast)->Args({kBatch, kN})->ArgNames({"B", "n"})->Apply(common);

// The fast combine gives the reference's result (one float32 addition per element:
// equal, not close). Returns false, with the first difference printed, if not.
bool fast_matches_reference() {
  const Inputs& in = inputs();
  const std::vector<std::int32_t> flat = in.batch(2, kN);
  const andrea::TokenIdBatch ids{flat.data(), 2, kN};
  Matrix plain(2 * kN, kD), fast(2 * kN, kD);
  ref::combine_batch(in.wte, in.wpe, ids, plain);
  andrea::bench::fast_combine_batch(in.wte, in.wpe, ids, fast);
  const auto a = plain.view().flat(), b = fast.view().flat();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      std::fprintf(stderr, "fast combine differs from the reference at element %zu: %g vs %g\n", i,
                   static_cast<double>(b[i]), static_cast<double>(a[i]));
      return false;
    }
  }
  return true;
}

void BM_row_norms(benchmark::State& state) {
  const Inputs& in = inputs();
  const std::int64_t rows = state.range(0);
  const andrea::ConstFloatView m{in.x.view().data(), rows, kD};
  std::vector<float> out(static_cast<std::size_t>(rows));
  for (auto _ : state) {
    ref::row_norms(m, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * row_norms_bytes(rows));
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_row_norms)->Args({kN})->ArgNames({"rows"})->Apply(common);

void BM_dot(benchmark::State& state) {
  const Inputs& in = inputs();
  const std::span<const float> u = in.x.row(0), v = in.x.row(1);
  for (auto _ : state) {
    float r = ref::dot(u, v);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * dot_bytes(kD));
}
BENCHMARK(BM_dot)->Args({kD})->ArgNames({"d"})->Apply(common);

// --- memcpy baseline: bytes read + written == combine_bytes(B, n) ---------------------
void BM_memcpy(benchmark::State& state) {
  const std::int64_t batch = state.range(0), n = state.range(1);
  const auto half = static_cast<std::size_t>(combine_bytes(batch, n) / 2);
  std::vector<char> src(half, 1), dst(half, 0);  // both touched: no first-touch faults
  for (auto _ : state) {
    benchmark::DoNotOptimize(src.data());
    std::memcpy(dst.data(), src.data(), half);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * half));
}
BENCHMARK(BM_memcpy)->Args({1, kN})->Args({kBatch, kN})->ArgNames({"B", "n"})->Apply(common);

// --- Validation alone: the passes the functions above make before any work --------------
// check::token_ids over the B*n ids (lookup, combine, combine_batch).
void BM_check_token_ids(benchmark::State& state) {
  const Inputs& in = inputs();
  const std::vector<std::int32_t> flat = in.batch(state.range(0), state.range(1));
  for (auto _ : state) {
    andrea::check::token_ids(flat, kV);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(flat.size()) * kI);
}
BENCHMARK(BM_check_token_ids)
    ->Args({1, kN})
    ->Args({kBatch, kN})
    ->ArgNames({"B", "n"})
    ->Apply(common);

// check::finite over rows*d floats: rows = 1024 is row_norms' pass over x,
// rows = 1 is one of dot's two passes.
void BM_check_finite(benchmark::State& state) {
  const Inputs& in = inputs();
  const std::span<const float> v =
      in.x.view().flat().first(static_cast<std::size_t>(state.range(0) * kD));
  for (auto _ : state) {
    andrea::check::finite("v", v);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(v.size_bytes()));
}
BENCHMARK(BM_check_finite)->Args({kN})->Args({1})->ArgNames({"rows"})->Apply(common);

// --- Lesson 8: the backward pass, B = 8, n = 1024 --------------------------------------
// dout = init values (seed 8); the buffers accumulate over the iterations, as .grad does.
std::int64_t distinct_ids(const std::vector<std::int32_t>& ids) {
  std::vector<bool> seen(static_cast<std::size_t>(kV), false);
  std::int64_t count = 0;
  for (const std::int32_t id : ids) {
    if (!seen[static_cast<std::size_t>(id)]) seen[static_cast<std::size_t>(id)] = true, ++count;
  }
  return count;
}

std::int64_t backward_bytes(std::int64_t batch, std::int64_t n, std::int64_t distinct) {
  return batch * n * kD * kF + 2 * distinct * kD * kF + 2 * n * kD * kF + batch * n * kI;
}

Matrix backward_dout(std::int64_t rows) {
  Matrix dout(rows, kD);
  for (std::int64_t i = 0; i < dout.view().size(); ++i) {
    dout.view().data()[i] = andrea::init_value(8, andrea::Table::token, i, kD);
  }
  return dout;
}

using BackwardFn = void (*)(andrea::TokenIdBatch, andrea::ConstFloatView, andrea::FloatView,
                            andrea::FloatView);

void backward(benchmark::State& state, BackwardFn fn) {
  const std::int64_t batch = state.range(0), n = state.range(1);
  const std::vector<std::int32_t> ids = inputs().batch(batch, n);
  const Matrix dout = backward_dout(batch * n);
  Matrix dwte(kV, kD), dwpe(kT, kD);
  for (auto _ : state) {
    fn(andrea::TokenIdBatch(ids.data(), batch, n), dout, dwte, dwpe);
    benchmark::ClobberMemory();
  }
  state.counters["distinct_ids"] = static_cast<double>(distinct_ids(ids));
  state.SetBytesProcessed(state.iterations() * backward_bytes(batch, n, distinct_ids(ids)));
}

void BM_embedding_backward(benchmark::State& state) { backward(state, ref::embedding_backward); }
BENCHMARK(BM_embedding_backward)->Args({kBatch, kN})->ArgNames({"B", "n"})->Apply(common);

void BM_embedding_backward_fast(benchmark::State& state) {
  backward(state, andrea::bench::fast_embedding_backward);
}
BENCHMARK(BM_embedding_backward_fast)->Args({kBatch, kN})->ArgNames({"B", "n"})->Apply(common);

// The fast backward gives the reference's result: the same additions in the same order.
bool fast_backward_matches_reference() {
  const std::vector<std::int32_t> flat = inputs().batch(2, kN);
  const andrea::TokenIdBatch ids{flat.data(), 2, kN};
  const Matrix dout = backward_dout(2 * kN);
  Matrix plain_wte(kV, kD), plain_wpe(kT, kD), fast_wte(kV, kD), fast_wpe(kT, kD);
  ref::embedding_backward(ids, dout, plain_wte, plain_wpe);
  andrea::bench::fast_embedding_backward(ids, dout, fast_wte, fast_wpe);
  for (const auto& [name, a, b] :
       {std::tuple{"dwte", plain_wte.view().flat(), fast_wte.view().flat()},
        std::tuple{"dwpe", plain_wpe.view().flat(), fast_wpe.view().flat()}}) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) {
        std::fprintf(stderr,
                     "fast backward's %s differs from the reference at element %zu: %g vs %g\n",
                     name, i, static_cast<double>(b[i]), static_cast<double>(a[i]));
        return false;
      }
    }
  }
  return true;
}

// The same where dwte and dwpe are views of one buffer, dwpe's rows straddling dwte's (the
// fast backward then adds the two rows one after the other, as the reference does).
bool fast_backward_matches_reference_shared() {
  constexpr std::int64_t vocab = 7, context = 5, batch = 3, n = 4, d = 13;
  std::vector<std::int32_t> flat(batch * n);
  for (std::size_t p = 0; p < flat.size(); ++p) flat[p] = static_cast<std::int32_t>(p * 5 % vocab);
  const andrea::TokenIdBatch ids{flat.data(), batch, n};
  std::vector<float> dout_buf(batch * n * d);
  for (std::size_t i = 0; i < dout_buf.size(); ++i) {
    dout_buf[i] = andrea::init_value(8, andrea::Table::token, static_cast<std::int64_t>(i), d);
  }
  const andrea::ConstFloatView dout{dout_buf.data(), batch * n, d};
  std::vector<float> plain((vocab + 3) * d, 0.5f), fast = plain;  // dwpe ends at 9 * d + 6
  const auto views = [&](std::vector<float>& buf) {  // dwpe starts midway through dwte's row 4
    return std::pair{andrea::FloatView{buf.data(), vocab, d},
                     andrea::FloatView{buf.data() + 4 * d + 6, context, d}};
  };
  const auto [plain_wte, plain_wpe] = views(plain);
  const auto [fast_wte, fast_wpe] = views(fast);
  ref::embedding_backward(ids, dout, plain_wte, plain_wpe);
  andrea::bench::fast_embedding_backward(ids, dout, fast_wte, fast_wpe);
  if (std::memcmp(plain.data(), fast.data(), sizeof(float) * plain.size()) != 0) {
    std::fprintf(stderr, "fast backward differs from the reference where dwte and dwpe share memory\n");
    return false;
  }
  return true;
}

// The fast backward checks dout's values as it adds them and puts back what it changed
// when it meets a bad one. One refused call: ids (batch, n) with repeats, gradients (vocab, d)
// and (context, d) that are not all zero, every buffer `shift` floats past an allocation (rows
// not 16-byte aligned when shift is odd), `bad` at dout's element `at`; where `wpe_at` >= 0,
// dwpe is a view into dwte's buffer, `wpe_at` floats past dwte's start (the two share memory).
// Passes when the fast backward throws the reference's message and leaves both gradients bit
// for bit as they were.
bool refuses_like_reference(std::int64_t vocab, std::int64_t context, std::int64_t batch,
                            std::int64_t n, std::int64_t d, std::int64_t shift, std::int64_t at,
                            float bad, std::int64_t wpe_at = -1) {
  std::vector<std::int32_t> flat(static_cast<std::size_t>(batch * n));
  for (std::size_t p = 0; p < flat.size(); ++p) {
    flat[p] = static_cast<std::int32_t>((p * 7 + p / 3) % static_cast<std::size_t>(vocab));
  }
  const andrea::TokenIdBatch ids{flat.data(), batch, n};
  const auto buffer = [shift](std::int64_t rows, std::int64_t cols) {
    return std::vector<float>(static_cast<std::size_t>(rows * cols + shift));
  };
  std::vector<float> dout_buf = buffer(batch * n, d), wpe_buf = buffer(context, d),
                     wte_buf = buffer(wpe_at < 0 ? vocab : vocab + context, d);
  const andrea::FloatView dout{dout_buf.data() + shift, batch * n, d};
  const andrea::FloatView dwte{wte_buf.data() + shift, vocab, d};
  const andrea::FloatView dwpe{wpe_at < 0 ? wpe_buf.data() + shift : dwte.data() + wpe_at, context, d};
  for (std::int64_t i = 0; i < dout.size(); ++i) {
    dout.data()[i] = andrea::init_value(8, andrea::Table::token, i, d);
  }
  if (n <= context) ref::embedding_backward(ids, dout, dwte, dwpe);  // not all zero
  const std::vector<float> wte_before = wte_buf, wpe_before = wpe_buf;
  dout.data()[at] = bad;
  std::string expected, got;
  try {
    ref::embedding_backward(ids, dout, dwte, dwpe);
  } catch (const andrea::InputError& e) {
    expected = e.what();
  }
  try {
    andrea::bench::fast_embedding_backward(ids, dout, dwte, dwpe);
  } catch (const andrea::InputError& e) {
    got = e.what();
  }
  const bool kept = std::memcmp(wte_before.data(), wte_buf.data(), 4 * wte_buf.size()) == 0 &&
                    std::memcmp(wpe_before.data(), wpe_buf.data(), 4 * wpe_buf.size()) == 0;
  if (expected.empty() || got != expected || !kept) {
    std::fprintf(stderr,
                 "fast backward, B %lld n %lld d %lld T %lld, %g at dout element %lld: message "
                 "\"%s\" (the reference: \"%s\"), gradients %s\n",
                 static_cast<long long>(batch), static_cast<long long>(n),
                 static_cast<long long>(d), static_cast<long long>(context),
                 static_cast<double>(bad), static_cast<long long>(at), got.c_str(),
                 expected.c_str(), kept ? "unchanged" : "CHANGED");
    return false;
  }
  return true;
}

// A nan, +inf and -inf in the first row (its first element, checked with the row's first
// addition), midway and in the last row, at this scale and at a small one whose rows end in
// a remainder (d = 13) and are not aligned; n > T with a nan (the reference names the nan);
// dwte and dwpe in one buffer, dwpe's rows straddling dwte's (rows saved twice, undone newest
// first).
bool fast_backward_refuses_like_reference() {
  constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr std::int64_t kBig = 2 * kN * kD;  // B = 2
  return refuses_like_reference(kV, kT, 2, kN, kD, 0, 5, kNan) &&
         refuses_like_reference(kV, kT, 2, kN, kD, 0, 1500 * kD + 7, kInf) &&
         refuses_like_reference(kV, kT, 2, kN, kD, 0, kBig - 1, -kInf) &&
         refuses_like_reference(7, 5, 3, 4, 13, 1, 0, -kInf) &&
         refuses_like_reference(7, 5, 3, 4, 13, 1, 6 * 13 + 12, kInf) &&  // a row's remainder
         refuses_like_reference(7, 5, 3, 4, 13, 1, 3 * 4 * 13 - 1, kNan) &&
         refuses_like_reference(7, 3, 1, 4, 13, 1, 20, kNan) &&  // n > T: which fault is named
         refuses_like_reference(7, 5, 3, 4, 13, 1, 6 * 13 + 12, kNan, 4 * 13 + 6) &&
         refuses_like_reference(7, 5, 3, 4, 13, 1, 3 * 4 * 13 - 1, -kInf, 0);
}

// memcpy of half the backward's bytes: read + written == backward_bytes.
void BM_memcpy_backward(benchmark::State& state) {
  const std::int64_t batch = state.range(0), n = state.range(1);
  const auto half = static_cast<std::size_t>(
      backward_bytes(batch, n, distinct_ids(inputs().batch(batch, n))) / 2);
  std::vector<char> src(half, 1), dst(half, 0);
  for (auto _ : state) {
    benchmark::DoNotOptimize(src.data());
    std::memcpy(dst.data(), src.data(), half);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * half));
}
BENCHMARK(BM_memcpy_backward)->Args({kBatch, kN})->ArgNames({"B", "n"})->Apply(common);

}  // namespace

#ifndef ANDREA_BENCH_CONFIG
#define ANDREA_BENCH_CONFIG "unknown"
#endif

// BENCHMARK_MAIN, plus the build type of this binary and andrea_reference in the
// context (the "library_build_type" Google Benchmark prints is its own).
int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!fast_matches_reference() || !fast_backward_matches_reference() ||
      !fast_backward_matches_reference_shared() ||
      !fast_backward_refuses_like_reference()) {
    return 1;
  }
  benchmark::AddCustomContext("andrea_build_type", ANDREA_BENCH_CONFIG);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
