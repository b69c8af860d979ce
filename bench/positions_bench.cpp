// Lesson 7: is it cheaper to compute the sinusoidal position rows or to read the
// same rows of a learned table? ANDREA-120M size: n = 1024 rows, d_model = 768, one
// thread. bench/README.md ("Position schemes") has the figures.
//
//   BM_sinusoidal_rows  reference::sinusoidal_table(n, 768, 1024, out): 384 pow and
//                       n * 384 (sin, cos) pairs in double; n*d*4 bytes written, nothing read
//   BM_learned_rows     reference::positions(wpe, n, out): rows 0..n-1 of wpe copied;
//                       n*d*4 bytes read + n*d*4 written
// Bytes: what the call moves (SetBytesProcessed); items: rows made (SetItemsProcessed).
#include <benchmark/benchmark.h>

#include <cstdint>

#include "core/config.hpp"
#include "core/init.hpp"
#include "core/tensor.hpp"
#include "reference/position.hpp"
#include "reference/sinusoidal.hpp"

namespace {

namespace ref = andrea::reference;
using andrea::Matrix;

constexpr std::int64_t kD = andrea::andrea_120m.d_model;         // 768
constexpr std::int64_t kT = andrea::andrea_120m.context_length;  // 1024
constexpr std::int64_t kF = sizeof(float);

void common(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMicrosecond)->UseRealTime()->Arg(kT)->ArgName("n");
}

void BM_sinusoidal_rows(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Matrix out(n, kD);
  for (auto _ : state) {
    ref::sinusoidal_table(n, kD, kT, out);
    benchmark::DoNotOptimize(out.view().data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * kD * kF);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_sinusoidal_rows)->Apply(common);

void BM_learned_rows(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Matrix wpe(kT, kD), out(n, kD);
  for (std::int64_t i = 0; i < wpe.view().size(); ++i) {
    wpe.view().data()[i] = andrea::init_value(andrea::default_seed, andrea::Table::position, i, kD);
  }
  for (auto _ : state) {
    ref::positions(wpe, n, out);
    benchmark::DoNotOptimize(out.view().data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * n * kD * kF);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_learned_rows)->Apply(common);

}  // namespace

#ifndef ANDREA_BENCH_CONFIG
#define ANDREA_BENCH_CONFIG "unknown"
#endif

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("andrea_build_type", ANDREA_BENCH_CONFIG);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
