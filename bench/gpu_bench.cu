// GPU benchmark of the embedding layer at ANDREA-120M scale (fp32, d_model = 768,
// n = 1024, B = 8 and 64): the fused combine kernel and the lookup kernel, each rung of their
// ladder (the plain float kernel of cuda/combine.cu, cuda/lookup.cu; the float4 one of
// cuda/combine_float4.cu, cuda/lookup_float4.cu), in µs and GB/s, next to a device-to-device
// copy of the same bytes measured in the same run.
//
// Bytes moved (the true traffic, counted once):
//   combine: output B*n*d*4 written + distinct wte rows * d*4 + n*d*4 of wpe + B*n*4 ids
//   lookup:  output B*n*d*4 written + distinct wte rows * d*4 + B*n*4 ids
// A copy of N bytes reads N and writes N, so the baseline copies bytes/2.
// The L2 cache is flushed (a memset of twice its size) before every timed run.
// Each kernel's result is checked once against the C++ reference (reference/) before it is
// timed: bit for bit where the kernel promises it (combine, lookup, the deterministic backward),
// within a bound for the atomic backward, whose order of additions varies; a mismatch ends the
// program (exit status 1) naming the kernel, the element, both values and the bound.
//   backward (lesson 8, B = 8 only): dout B*n*d*4 read + distinct dwte rows read and
//            written (2 * U*d*4) + dwpe read and written (2 * n*d*4) + ids; the atomic and
//            the deterministic kernels move the same true bytes (the grouping arrays are
//            B*n*4 + 2*U*4 more for the deterministic one, and its host grouping is timed apart)
// Style of llm.c's dev/cuda: this file includes the kernels it measures.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "core/config.hpp"
#include "core/init.hpp"
#include "cuda/backward.cu"
#include "cuda/combine.cu"
#include "cuda/combine_float4.cu"
#include "cuda/device.hpp"
#include "cuda/lookup.cu"
#include "cuda/lookup_float4.cu"
#include "cudasim/gpu_presence.hpp"  // presence(): is there a GPU to measure
#include "reference/backward.hpp"
#include "reference/combine.hpp"
#include "reference/lookup.hpp"

namespace {

using namespace andrea;
using namespace andrea::cuda;  // the kernels, DeviceBuffer, device_name

struct Timer {
  cudaEvent_t start{}, stop{};
  Timer() {
    ANDREA_CUDA_CHECK(cudaEventCreate(&start));
    ANDREA_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

// Median time in µs of `runs` runs of f, each after reset() (not timed: e.g. zeroing the
// gradients that a backward kernel accumulates into) and after flushing L2.
template <class F, class Reset>
double time_us(F f, DeviceBuffer<char>& flush, Reset reset, int runs = 50) {
  Timer timer;
  std::vector<float> ms;
  for (int i = 0; i < runs; ++i) {
    reset();
    ANDREA_CUDA_CHECK(cudaMemset(flush.get(), i, flush.bytes()));
    ANDREA_CUDA_CHECK(cudaEventRecord(timer.start));
    f();
    ANDREA_CUDA_CHECK(cudaEventRecord(timer.stop));
    ANDREA_CUDA_CHECK(cudaEventSynchronize(timer.stop));
    ANDREA_CUDA_CHECK(cudaGetLastError());
    float t = 0;
    ANDREA_CUDA_CHECK(cudaEventElapsedTime(&t, timer.start, timer.stop));
    ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + runs / 2, ms.end());
  return 1000.0 * ms[runs / 2];
}
template <class F>
double time_us(F f, DeviceBuffer<char>& flush) {  // a kernel that only writes: nothing to reset
  return time_us(f, flush, [] {});
}

// The kernel's result (on the device) against the reference's: |got - want| <= tolerance
// (1 + |want|) for every element, else the program fails naming the first one that is not.
void check_result(const char* kernel, const DeviceBuffer<float>& got_device,
                  const std::vector<float>& want, float tolerance) {
  const std::vector<float> got = got_device.to_host();
  for (std::size_t i = 0; i < want.size(); ++i) {
    const float bound = tolerance * (1.0f + std::fabs(want[i]));
    if (!(std::fabs(got[i] - want[i]) <= bound)) {
      std::fprintf(stderr,
                   "gpu_bench: %s: element %zu of %zu is %.9g, the reference's is %.9g "
                   "(|difference| %.3g > bound %.3g)\n",
                   kernel, i, want.size(), got[i], want[i], std::fabs(got[i] - want[i]), bound);
      std::exit(1);
    }
  }
  std::printf("  %-22s checked against the reference: %zu values%s\n", kernel, want.size(),
              tolerance == 0.0f ? ", bit for bit" : "");
}

void row(const char* name, double bytes, double us, double copy_us) {
  std::printf("  %-22s %10.1f us %8.1f GB/s   copy %8.1f us %8.1f GB/s   %5.1f%% of copy\n", name,
              us, bytes / us * 1e-3, copy_us, bytes / copy_us * 1e-3, 100.0 * copy_us / us);
}

// A device-to-device copy of bytes / 2 bytes (it reads them and writes them), timed: the
// roof each kernel is compared with.
double copy_us(double bytes, DeviceBuffer<char>& flush) {
  DeviceBuffer<char> src(static_cast<std::int64_t>(bytes / 2)),
      dst(static_cast<std::int64_t>(bytes / 2));
  return time_us(
      [&] { cudaMemcpyAsync(dst.get(), src.get(), src.bytes(), cudaMemcpyDeviceToDevice); }, flush);
}

// A table of rows x d as the course initialises it (core/init.hpp).
std::vector<float> initial_table(Table table, std::int64_t rows, std::int64_t d,
                                 std::uint64_t seed = default_seed) {
  std::vector<float> values(static_cast<std::size_t>(rows * d));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = init_value(seed, table, static_cast<std::int64_t>(i), d);
  return values;
}

// dwte and dwpe as the C++ reference computes them from ids (B * n of them) and dout.
struct Gradients {
  std::vector<float> dwte, dwpe;
};
Gradients reference_gradients(const std::vector<std::int32_t>& ids, const std::vector<float>& dout,
                              std::int64_t n, std::int64_t d, std::int64_t vocab_size) {
  const auto rows = static_cast<std::int64_t>(ids.size());
  Gradients want{std::vector<float>(static_cast<std::size_t>(vocab_size * d)),
                 std::vector<float>(static_cast<std::size_t>(n * d))};
  reference::embedding_backward(
      TokenIdBatch(ids.data(), rows / n, n), ConstFloatView(dout.data(), rows, d),
      FloatView(want.dwte.data(), vocab_size, d), FloatView(want.dwpe.data(), n, d));
  return want;
}

// Lesson 8 at B = 8: the atomic kernel and the deterministic pair (dwte by groups, dwpe by
// position), kernels only; dwte and dwpe are reset to 0 before each timed run (not timed), as
// the kernels accumulate into them.
void backward(const std::vector<std::int32_t>& ids, std::int64_t n, std::int64_t d,
              std::int64_t vocab_size, std::size_t distinct, DeviceBuffer<char>& flush) {
  const auto rows = static_cast<std::int64_t>(ids.size());
  const std::vector<float> dout = initial_table(Table::token, rows, d, 8);  // as reference_bench
  const Gradients want = reference_gradients(ids, dout, n, d, vocab_size);
  const DeviceBuffer<float> d_dout{std::span<const float>(dout)};
  const DeviceBuffer<std::int32_t> d_ids{std::span<const std::int32_t>(ids)};
  DeviceBuffer<float> d_dwte(vocab_size * d), d_dwpe(n * d);
  const auto reset = [&] {
    ANDREA_CUDA_CHECK(cudaMemset(d_dwte.get(), 0, d_dwte.bytes()));
    ANDREA_CUDA_CHECK(cudaMemset(d_dwpe.get(), 0, d_dwpe.bytes()));
  };

  const auto t0 = std::chrono::steady_clock::now();
  const PositionGroups g = group_positions(ids, vocab_size);
  const double group_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  const DeviceBuffer<std::int32_t> d_rows{std::span<const std::int32_t>(g.rows)},
      d_offsets{std::span<const std::int32_t>(g.offsets)},
      d_positions{std::span<const std::int32_t>(g.positions)};
  const auto u = static_cast<std::int64_t>(g.rows.size());

  const auto atomic = [&] {
    backward_atomic_kernel<<<blocks_for(rows * d), kThreads>>>(
        d_dout.get(), d_ids.get(), d_dwte.get(), d_dwpe.get(), rows, n, d, vocab_size);
  };
  const auto deterministic_wte = [&] {
    wte_backward_kernel<<<blocks_for(u * d), kThreads>>>(
        d_dout.get(), d_rows.get(), d_offsets.get(), d_positions.get(), d_dwte.get(), u, d);
  };
  const auto deterministic_wpe = [&] {
    wpe_backward_kernel<<<blocks_for(n * d), kThreads>>>(d_dout.get(), d_dwpe.get(), rows / n, n,
                                                         d);
  };
  // Once each, checked: the atomic kernel adds in any order (a bound of 1e-5 relative), the
  // deterministic pair in the reference's order (bit for bit).
  reset();
  atomic();
  ANDREA_CUDA_CHECK_LAUNCH();
  check_result("backward atomic dwte", d_dwte, want.dwte, 1e-5f);
  check_result("backward atomic dwpe", d_dwpe, want.dwpe, 1e-5f);
  reset();
  deterministic_wte();
  deterministic_wpe();
  ANDREA_CUDA_CHECK_LAUNCH();
  check_result("backward determ. dwte", d_dwte, want.dwte, 0.0f);
  check_result("backward determ. dwpe", d_dwpe, want.dwpe, 0.0f);

  const double bytes =
      4.0 * rows * d + 2 * 4.0 * static_cast<double>(distinct) * d + 2 * 4.0 * n * d + 4.0 * rows;
  const double copy = copy_us(bytes, flush);
  row("backward atomic", bytes, time_us(atomic, flush, reset), copy);
  const double wte_us = time_us(deterministic_wte, flush, reset);
  const double wpe_us = time_us(deterministic_wpe, flush, reset);
  row("backward deterministic", bytes, wte_us + wpe_us, copy);
  std::printf(
      "    (dwte kernel %.1f us + dwpe kernel %.1f us; host grouping of %lld ids %.1f us, not "
      "included)\n",
      wte_us, wpe_us, static_cast<long long>(rows), group_us);
}

// ANDREA-120M's tables, on the host and on the device.
struct Tables {
  explicit Tables(const Config& c)
      : wte(initial_table(Table::token, c.vocab_size, c.d_model)),
        wpe(initial_table(Table::position, c.context_length, c.d_model)),
        d_wte(std::span<const float>(wte)),
        d_wpe(std::span<const float>(wpe)) {}
  std::vector<float> wte, wpe;
  DeviceBuffer<float> d_wte, d_wpe;
};

// A batch of B sequences of n ids: row b is the example sequence turned by b positions.
std::vector<std::int32_t> batch_ids(const std::vector<std::int32_t>& example, std::int64_t batch) {
  const auto n = static_cast<std::int64_t>(example.size());
  std::vector<std::int32_t> ids(static_cast<std::size_t>(batch * n));
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t t = 0; t < n; ++t)
      ids[static_cast<std::size_t>(b * n + t)] = example[static_cast<std::size_t>((t + b) % n)];
  }
  return ids;
}

// The two rungs of lessons 1 and 5 on one batch: a float per thread, then a float4 per thread,
// each checked against the reference, then timed beside a copy of the same bytes.
void forward(const Config& c, const Tables& tables, const std::vector<std::int32_t>& ids,
             std::size_t distinct, DeviceBuffer<char>& flush) {
  const std::int64_t d = c.d_model, n = c.context_length;
  const auto batch = static_cast<std::int64_t>(ids.size()) / n;
  const auto rows = static_cast<unsigned>(batch * n);
  const DeviceBuffer<std::int32_t> d_ids{std::span<const std::int32_t>(ids)};
  DeviceBuffer<float> d_out(batch * n * d);
  const float* wte = tables.d_wte.get();
  const float* wpe = tables.d_wpe.get();
  const auto combine_float = [&] {
    combine_kernel<<<rows, threads_per_row(d)>>>(wte, wpe, d_ids.get(), d_out.get(), n, d,
                                                 c.vocab_size);
  };
  const auto combine_float4 = [&] {
    combine_float4_kernel<<<rows, 192>>>(reinterpret_cast<const float4*>(wte),
                                         reinterpret_cast<const float4*>(wpe), d_ids.get(),
                                         reinterpret_cast<float4*>(d_out.get()), n, d / 4,
                                         c.vocab_size);
  };
  const auto lookup_float = [&] {
    lookup_kernel<<<rows, threads_per_row(d)>>>(wte, d_ids.get(), d_out.get(), d, c.vocab_size);
  };
  const auto lookup_float4 = [&] {
    lookup_float4_kernel<<<rows, 192>>>(reinterpret_cast<const float4*>(wte), d_ids.get(),
                                        reinterpret_cast<float4*>(d_out.get()), d / 4,
                                        c.vocab_size);
  };
  const ConstFloatView wte_view(tables.wte.data(), c.vocab_size, d), wpe_view(tables.wpe.data(), n, d);
  std::vector<float> want(static_cast<std::size_t>(batch * n * d));
  const auto verify = [&](const char* name, const auto& kernel) {  // once, before timing
    kernel();
    ANDREA_CUDA_CHECK_LAUNCH();
    check_result(name, d_out, want, 0.0f);
  };
  reference::combine_batch(wte_view, wpe_view, TokenIdBatch(ids.data(), batch, n),
                           FloatView(want.data(), batch * n, d));
  verify("combine (fused) float", combine_float);
  verify("combine (fused) float4", combine_float4);
  reference::lookup(wte_view, TokenIds(ids), FloatView(want.data(), batch * n, d));
  verify("lookup float", lookup_float);
  verify("lookup float4", lookup_float4);

  const double out_bytes = 4.0 * batch * n * d, rows_bytes = 4.0 * distinct * d;
  const double ids_bytes = 4.0 * batch * n, wpe_bytes = 4.0 * n * d;
  const double combine_bytes = out_bytes + rows_bytes + wpe_bytes + ids_bytes;
  const double combine_copy = copy_us(combine_bytes, flush);
  row("combine (fused) float", combine_bytes, time_us(combine_float, flush), combine_copy);
  row("combine (fused) float4", combine_bytes, time_us(combine_float4, flush), combine_copy);
  const double lookup_bytes = out_bytes + rows_bytes + ids_bytes;
  const double lookup_copy = copy_us(lookup_bytes, flush);
  row("lookup float", lookup_bytes, time_us(lookup_float, flush), lookup_copy);
  row("lookup float4", lookup_bytes, time_us(lookup_float4, flush), lookup_copy);
}

}  // namespace

int main() {
  // No device: nothing to measure (exit status 0, as before). A device that fails: an error.
  const ::cudasim::gpu::Presence device = ::cudasim::gpu::presence();
  if (device.kind == device.none) {
    std::printf("skipped: %s\n", device.reason.c_str());
    return 0;
  }
  if (device.kind == device.broken) {
    std::fprintf(stderr, "gpu_bench: %s\n", device.reason.c_str());
    return 1;
  }
  std::printf("device: %s\n", andrea::cuda::device_name().c_str());
  const Config& c = andrea_120m;
  const Tables tables(c);
  int l2 = 0;
  ANDREA_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  DeviceBuffer<char> flush(2 * static_cast<std::int64_t>(l2));

  const std::vector<std::int32_t> example = example_ids(c.context_length, c.vocab_size);
  for (const std::int64_t batch : {8, 64}) {
    const std::vector<std::int32_t> ids = batch_ids(example, batch);
    const std::set<std::int32_t> distinct(ids.begin(), ids.end());
    std::printf("B = %lld, n = %lld, d_model = %lld (%zu distinct token rows)\n",
                static_cast<long long>(batch), static_cast<long long>(c.context_length),
                static_cast<long long>(c.d_model), distinct.size());
    forward(c, tables, ids, distinct.size(), flush);
    if (batch == 8) backward(ids, c.context_length, c.d_model, c.vocab_size, distinct.size(), flush);
  }
  return 0;
}
