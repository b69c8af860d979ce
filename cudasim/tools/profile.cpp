// profile: the memory traffic of a launch, counted as Nsight Compute counts it on a GPU.
//
// A warp-level request is one memory instruction executed by a warp: here, the k-th execution
// of one instruction (code address) by each lane of the warp since the warp's last barrier. Its
// global sectors are the distinct 32-byte blocks its lanes touch; its shared-memory wavefronts
// the passes the 32 banks (4 bytes wide) need: n lanes touching different 4-byte words of one
// bank take n passes (an n-way bank conflict); lanes reading the same word are served together.
// 8- and 16-byte accesses are served a half or a quarter of the warp at a time.
//
//   l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum    global load requests     (op_st: stores)
//   l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum     their 32-byte sectors    (op_st: stores)
//   l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum  global atomic requests   (+ op_red)
//   l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum   shared load wavefronts (op_st)
//   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum  wavefronts beyond the ideal (one
//                                                      per phase: 1, 2 for 8-byte, 4 for 16-byte)
//   dram__bytes_read.sum, dram__bytes_write.sum        at least: each distinct sector once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>
#include <unordered_map>
#include <vector>

#include "cudasim/block.hpp"
#include "cudasim/memory.hpp"
#include "cudasim/tools/internal.hpp"

namespace cudasim::tools::prof {
namespace {

// What an instruction does, as the rows of the report.
enum Class : std::uint8_t {
  global_ld,
  global_st,
  global_atom,
  shared_ld,
  shared_st,
  shared_atom,
  constant_ld  // a __constant__ variable: the constant cache, not counted in the DRAM bytes
};
constexpr int kClasses = 7;
constexpr const char* kClassName[] = {"global load",  "global store", "global atomic",
                                      "shared load",  "shared store", "shared atomic",
                                      "constant load"};

struct Record {
  std::uintptr_t pc;
  std::uint32_t k;  // this lane's k-th execution of pc since the warp's last barrier (flush)
  Class cls;
  std::uint8_t lane;
  std::uint8_t parts = 1;  // > 1: scalar pieces of one float4 access (see access())
  std::uint32_t size;
  std::uintptr_t address;
  std::array<std::uintptr_t, 4> part_pc{};  // the pieces' instructions
};

struct Warp {
  std::vector<Record> records;                         // in the order the lanes made them
  std::array<std::array<std::int64_t, 4>, 32> recent;  // per lane: its latest records, or -1
  Warp() { forget(); }
  void forget() {
    for (auto& r : recent) r.fill(-1);
  }
};

struct Counts {
  std::uint64_t requests = 0, sectors = 0, bytes = 0, wavefronts = 0, max_way = 0, lanes = 0;
  std::uint64_t ideal_wavefronts = 0;  // one per phase: what the request needs without conflicts
  // Global: the request with the most sectors beyond what its bytes need, and the step from one
  // lane's address to the next in it (0 when the lanes do not step evenly).
  std::uint64_t worst_excess = 0;
  std::int64_t lane_stride = 0;
  std::uint64_t needed = 0;  // global: the sectors the distinct bytes of each request fill, summed
  void add(const Counts& o) {
    if (o.worst_excess > worst_excess || requests == 0) {
      worst_excess = o.worst_excess, lane_stride = o.lane_stride;
    }
    requests += o.requests, sectors += o.sectors, bytes += o.bytes, wavefronts += o.wavefronts;
    needed += o.needed;
    ideal_wavefronts += o.ideal_wavefronts;
    lanes += o.lanes;
    max_way = std::max(max_way, o.max_way);
  }
};

struct State {
  std::vector<Warp> warps;
  std::map<std::pair<std::uintptr_t, Class>, Counts> by_pc;
  std::unordered_map<std::uint64_t, std::uint32_t> read_sectors, written_sectors;  // byte masks
  std::unordered_map<std::uintptr_t, std::uint64_t> atomics;                       // per address
  std::vector<std::uintptr_t> pending_atomic;  // per thread: an atomic load's address
  std::uint64_t blocks = 0, barriers = 0;
};
State g;
LaunchProfile g_last;
std::vector<LaunchProfile> g_taken;  // since the last take_profiles(), text left out
// A program that profiles without taking (CUDASIM_TOOLS=profile on a long training run) keeps
// only the first launches: the list stays a few MB.
constexpr std::size_t kKeptLaunches = 8192;

void mark(std::unordered_map<std::uint64_t, std::uint32_t>& sectors, std::uintptr_t a,
          std::size_t size) {
  for (std::uintptr_t b = a; b < a + size;) {
    const std::uintptr_t end = std::min<std::uintptr_t>(a + size, (b | 31) + 1);
    const auto bits = static_cast<std::uint32_t>(((std::uint64_t{1} << (end - b)) - 1) << (b & 31));
    sectors[b >> 5] |= bits;
    b = end;
  }
}

// One warp-level request: the records of its lanes.
Counts request(const Record* r, std::size_t n) {
  Counts c;
  c.requests = 1;
  c.lanes = n;
  if (r->cls <= global_atom || r->cls == constant_ld) {
    std::vector<std::uint64_t> sectors;
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> spans;  // [first byte, end)
    for (std::size_t i = 0; i < n; ++i) {
      c.bytes += r[i].size;
      spans.emplace_back(r[i].address, r[i].address + r[i].size);
      for (std::uint64_t s = r[i].address >> 5; s <= (r[i].address + r[i].size - 1) >> 5; ++s) {
        sectors.push_back(s);
      }
    }
    std::sort(sectors.begin(), sectors.end());
    c.sectors =
        static_cast<std::uint64_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
    // The fewest sectors that could hold the request's distinct bytes.
    std::sort(spans.begin(), spans.end());
    std::uint64_t distinct = 0;
    for (std::uintptr_t end = 0; const auto& [first, last] : spans) {
      distinct += last > std::max(first, end) ? last - std::max(first, end) : 0;
      end = std::max(end, last);
    }
    c.needed = (distinct + 31) / 32;
    c.worst_excess = c.sectors - c.needed;
    for (std::size_t i = 1; i < n; ++i) {  // the lanes come in order (flush sorts them)
      const auto step = static_cast<std::int64_t>(r[i].address - r[i - 1].address) /
                        static_cast<std::int64_t>(r[i].lane - r[i - 1].lane);
      if (i > 1 && step != c.lane_stride) {
        c.lane_stride = 0;
        break;
      }
      c.lane_stride = step;
    }
    return c;
  }
  // Shared memory: 32 banks of 4 bytes; a 16-byte access is served 8 lanes at a time.
  const std::uint32_t size = std::max<std::uint32_t>(4, r->size);
  const unsigned lanes_per_phase = 32 * 4 / std::min<std::uint32_t>(size, 16);
  std::map<unsigned, std::array<std::vector<std::uintptr_t>, 32>> phases;
  for (std::size_t i = 0; i < n; ++i) {
    c.bytes += r[i].size;
    auto& banks = phases[r[i].lane / lanes_per_phase];
    for (std::uintptr_t w = r[i].address >> 2; w <= (r[i].address + r[i].size - 1) >> 2; ++w) {
      banks[w & 31].push_back(w);
    }
  }
  for (auto& [phase, banks] : phases) {
    std::uint64_t way = 1;
    for (auto& words : banks) {
      std::sort(words.begin(), words.end());
      way = std::max<std::uint64_t>(way, std::unique(words.begin(), words.end()) - words.begin());
    }
    c.wavefronts += way;
    c.ideal_wavefronts += 1;
    c.max_way = std::max(c.max_way, way);
  }
  return c;
}

void flush(Warp& w) {
  // Pieces that did not make a whole float4 were separate accesses after all.
  std::vector<Record> rs;
  rs.reserve(w.records.size());
  for (const Record& r : w.records) {
    if (r.parts == 1 || r.size == 16) {
      rs.push_back(r);
      continue;
    }
    const std::uint32_t piece = r.size / r.parts;
    for (unsigned i = 0; i < r.parts; ++i) {
      Record p = r;
      p.parts = 1, p.pc = r.part_pc[i], p.size = piece, p.address = r.address + i * piece;
      rs.push_back(p);
    }
  }
  std::unordered_map<std::uintptr_t, std::array<std::uint32_t, 32>> executed;  // per pc, lane
  for (Record& r : rs) r.k = executed[r.pc][r.lane]++;
  std::sort(rs.begin(), rs.end(), [](const Record& a, const Record& b) {
    return std::tie(a.pc, a.cls, a.k, a.lane) < std::tie(b.pc, b.cls, b.k, b.lane);
  });
  for (std::size_t i = 0; i < rs.size();) {
    std::size_t j = i + 1;
    while (j < rs.size() && rs[j].pc == rs[i].pc && rs[j].cls == rs[i].cls && rs[j].k == rs[i].k)
      ++j;
    g.by_pc[{rs[i].pc, rs[i].cls}].add(request(&rs[i], j - i));
    i = j;
  }
  w.records.clear();
  w.forget();
}

}  // namespace

std::string fixed(double x, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, x);
  return text;
}

std::string duration(double seconds) {
  if (seconds < 1e-6) return fixed(seconds * 1e9, 1) + " ns";
  if (seconds < 1e-3) return fixed(seconds * 1e6, 2) + " us";
  return fixed(seconds * 1e3, 2) + " ms";
}

namespace {

std::string pad(std::string s, std::size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

}  // namespace

void launch_begin() { g = State{}; }

void block_begin(unsigned threads) {
  g.warps.resize(std::max<std::size_t>(g.warps.size(), (threads + 31) / 32));
  g.pending_atomic.assign(threads, 0);
  ++g.blocks;
}

void block_synced() {
  for (Warp& w : g.warps) flush(w);
}

void barrier_passed() { ++g.barriers; }

void warp_synced(unsigned w) { flush(g.warps[w]); }

void access(std::uintptr_t a, std::size_t size, unsigned kind, std::uintptr_t pc, unsigned tid,
            Space space) {
  const bool atomic = (kind & kAtomic) != 0;
  std::uintptr_t& pending = g.pending_atomic[tid];
  // The layer's atomicAdd(float*) and atomicMax are an atomic load and a compare-and-swap
  // loop: one atomic operation on a GPU. The load counts; the CAS that follows it does not.
  if (atomic && (kind & kWrite) != 0 && pending == a) return;
  pending = atomic && kind == (kRead | kAtomic) ? a : 0;
  const int base = space == Space::shared ? shared_ld : global_ld;
  const auto cls = space == Space::constant
                       ? constant_ld
                       : static_cast<Class>(base + (atomic                 ? 2
                                                    : (kind & kWrite) != 0 ? 1
                                                                           : 0));
  if (space == Space::global) {
    if ((kind & kRead) != 0 || atomic) mark(g.read_sectors, a, size);
    if ((kind & kWrite) != 0 || atomic) mark(g.written_sectors, a, size);
  }
  if (atomic) ++g.atomics[a];
  Warp& w = g.warps[tid / 32];
  const unsigned lane = tid % 32;
  // g++ splits a float4 load or store into four of 4 bytes where nvcc makes one 16-byte
  // instruction: pieces that continue one of the lane's latest accesses, from 16-byte aligned
  // up to a whole float4, made by other instructions, count as that one access (flush() splits
  // them again otherwise).
  for (const std::int64_t i : w.recent[lane]) {
    if (i < 0) continue;
    Record& prev = w.records[static_cast<std::size_t>(i)];
    if (prev.cls == cls && prev.address % 16 == 0 && prev.address + prev.size == a &&
        prev.size + size <= 16 && size == prev.size / prev.parts && prev.parts < 4 &&
        std::find(prev.part_pc.begin(), prev.part_pc.begin() + prev.parts, pc) ==
            prev.part_pc.begin() + prev.parts) {  // other instructions, not a loop's next turn
      prev.part_pc[prev.parts++] = pc;
      prev.size += static_cast<std::uint32_t>(size);
      return;
    }
  }
  auto& recent = w.recent[lane];
  std::rotate(recent.rbegin(), recent.rbegin() + 1, recent.rend());
  recent[0] = static_cast<std::int64_t>(w.records.size());
  Record r{pc, 0, cls, static_cast<std::uint8_t>(lane), 1, static_cast<std::uint32_t>(size), a};
  r.part_pc[0] = pc;
  w.records.push_back(r);
}

namespace {

using ClassCounts = Counts[kClasses];

// "(x,y,z)": the dimensions of a grid or a block.
std::string dims(dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// The first lines of the report: the launch, then the heading of the table.
std::string heading(const detail::LaunchInfo& launch) {
  std::string s = "profile: kernel '" + std::string(launch.name) + "' grid " + dims(launch.grid) +
                  " block " + dims(launch.block) + ", " + with_commas(launch.shared_bytes) +
                  " bytes of dynamic shared memory\n";
  s += "  " + pad("line", 33) + " " + pad("access", 15) + pad("requests", 10, true) +
       pad("sectors", 10, true) + pad("sect/req", 9, true) + pad("bytes req", 12, true) +
       pad("bytes moved", 13, true) + pad("bank way", 9, true) + "\n";
  return s;
}

// One row of the table: a .cu line (or "total"), a class of access, and its counts.
std::string table_row(const std::string& line, Class cls, const Counts& c) {
  std::string r = "  " + pad(line, 33) + " " + pad(kClassName[cls], 15) +
                  pad(with_commas(c.requests), 10, true);
  if (cls <= global_atom || cls == constant_ld) {
    r += pad(with_commas(c.sectors), 10, true) +
         pad(fixed(c.requests ? double(c.sectors) / double(c.requests) : 0.0, 1), 9, true) +
         pad(with_commas(c.bytes), 12, true) + pad(with_commas(c.sectors * 32), 13, true);
  } else {
    r += pad("", 19) + pad(with_commas(c.bytes), 12, true) +
         pad(with_commas(c.wavefronts) + " wf", 13, true) +
         pad(cls == shared_atom ? "" : std::to_string(c.max_way), 9, true);
  }
  return r + "\n";
}

// The rows of the table: one per .cu line and class of access, then a total per class (the
// totals also go to *totals).
std::string table(ClassCounts& totals) {
  std::vector<std::uintptr_t> pcs;
  for (const auto& [key, counts] : g.by_pc) pcs.push_back(key.first);
  prefetch_lines(pcs);
  std::map<std::pair<std::string, Class>, Counts> rows;
  for (const auto& [key, counts] : g.by_pc) {
    rows[{where(key.first), key.second}].add(counts);
    totals[key.second].add(counts);
  }
  std::string s;
  for (const auto& [key, c] : rows) s += table_row(key.first, key.second, c);
  for (int cls = 0; cls < kClasses; ++cls) {
    if (totals[cls].requests != 0) s += table_row("total", static_cast<Class>(cls), totals[cls]);
  }
  return s;
}

// A line for the bank conflicts of the shared loads, one for those of the shared stores.
std::string bank_conflicts(const ClassCounts& totals) {
  std::string s;
  for (int cls : {shared_ld, shared_st}) {
    const Counts& c = totals[cls];
    if (c.requests != 0) {
      s += "  " + std::string(kClassName[cls]) +
           " bank conflicts: " + with_commas(c.wavefronts - c.ideal_wavefronts) +
           " (wavefronts beyond the conflict-free count; worst request " +
           std::to_string(c.max_way) + "-way)\n";
    }
  }
  return s;
}

// The launch's counts of accesses, blocks and barriers into p.
void count_accesses(LaunchProfile& p, const detail::LaunchInfo& launch, const ClassCounts& totals) {
  p.kernel = launch.name;
  AccessCounts* const kinds[] = {&p.global_load,  &p.global_store, &p.global_atomic,
                                 &p.shared_load,  &p.shared_store, &p.shared_atomic,
                                 &p.constant_load};
  for (int cls = 0; cls < kClasses; ++cls) {
    const Counts& c = totals[cls];
    *kinds[cls] = {c.requests,
                   c.sectors,
                   c.wavefronts,
                   cls >= shared_ld && cls <= shared_atom ? c.wavefronts - c.ideal_wavefronts : 0,
                   c.max_way,
                   c.bytes,
                   c.lane_stride,
                   c.needed};
  }
  p.blocks = g.blocks;
  p.threads_per_block = std::uint64_t{launch.block.x} * launch.block.y * launch.block.z;
  p.barriers = g.barriers;
}

// The DRAM traffic (into p) and the least time it takes on three GPUs: two lines.
std::string dram_traffic(LaunchProfile& p) {
  std::uint64_t read = 0, written = 0, ideal = 0;
  for (const auto& [sector, bits] : g.read_sectors) read += 32, ideal += std::popcount(bits);
  for (const auto& [sector, bits] : g.written_sectors) written += 32, ideal += std::popcount(bits);
  const double total = double(read + written);
  p.dram_bytes_read = read;
  p.dram_bytes_written = written;
  p.ideal_bytes = ideal;
  return "  DRAM at least (each distinct 32-byte sector once): " + with_commas(read) +
         " bytes read + " + with_commas(written) + " written = " + with_commas(read + written) +
         " bytes; ideal " + "(each byte the kernel uses, once): " + with_commas(ideal) +
         " bytes\n" + "  time at memory bandwidth, at least: " + duration(total / 4.8e12) +
         " on H200 (4.8 TB/s), " + duration(total / 2.039e12) + " on A100 80GB (2.039 TB/s), " +
         duration(total / 320e9) + " on T4 (320 GB/s)\n";
}

// The atomics (into p) and the most contended address: a line, none without atomics.
std::string atomics(LaunchProfile& p) {
  if (g.atomics.empty()) return "";
  std::uint64_t count = 0;
  auto top = g.atomics.begin();
  for (auto it = g.atomics.begin(); it != g.atomics.end(); ++it) {
    count += it->second;
    if (it->second > top->second || (it->second == top->second && it->first < top->first))
      top = it;
  }
  p.atomics = count;
  p.most_contended = top->second;
  return "  atomics: " + with_commas(count) + " on " + with_commas(g.atomics.size()) +
         " addresses; the most contended, " + detail::describe_address(top->first) + ", " +
         with_commas(top->second) + " times\n";
}

}  // namespace

std::string report() {
  const detail::LaunchInfo& launch = current_launch();
  Counts totals[kClasses];
  std::string s = heading(launch);
  s += table(totals);
  s += bank_conflicts(totals);
  LaunchProfile& p = g_last;
  p = LaunchProfile{};
  count_accesses(p, launch, totals);
  s += dram_traffic(p);
  s += atomics(p);
  s += "  in short: " + summary(p) + "\n";
  p.text = s;
  if (g_taken.size() < kKeptLaunches) {
    g_taken.push_back(p);
    g_taken.back().text.clear();
  }
  return s;
}

}  // namespace cudasim::tools::prof

namespace cudasim {

LaunchProfile last_profile() { return tools::prof::g_last; }

std::vector<LaunchProfile> take_profiles() { return std::exchange(tools::prof::g_taken, {}); }

std::string summary(const LaunchProfile& p) {
  using tools::with_commas, tools::prof::fixed, tools::prof::duration;
  std::string s;
  if (const std::uint64_t requests = global_requests(p); requests != 0) {
    s += "global " + with_commas(requests) + " requests at " +
         fixed(double(global_sectors(p)) / double(requests), 1) + " sectors each (" +
         fixed(double(global_needed(p)) / double(requests), 1) + " would do)";
  }
  const std::uint64_t shared = p.shared_load.requests + p.shared_store.requests;
  if (shared != 0) {
    s += std::string(s.empty() ? "" : "; ") + "shared " + with_commas(p.shared_load.requests) +
         " loads + " + with_commas(p.shared_store.requests) + " stores, " +
         with_commas(p.shared_load.bank_conflicts + p.shared_store.bank_conflicts) +
         " bank conflicts";
  }
  if (p.atomics != 0) {
    // The global ones apart (counted in 4-byte ones, as the efficiency tests grade them): a
    // shared-memory histogram's point is fewer of them, not fewer atomics.
    s += std::string(s.empty() ? "" : "; ") + with_commas(p.atomics) + " atomics (" +
         with_commas(p.global_atomic.bytes / 4) + " on global memory), at most " +
         with_commas(p.most_contended) + " on one address";
  }
  if (p.barriers != 0) {
    s += "; " + fixed(double(p.barriers) / double(std::max<std::uint64_t>(1, p.blocks)), 1) +
         " barriers per block";
  }
  const double moved = double(global_sectors(p) * 32);
  s += std::string(s.empty() ? "" : "; ") + with_commas(global_sectors(p) * 32) +
       " bytes moved (each byte once: " + with_commas(p.ideal_bytes) + "): at least " +
       duration(moved / 4.8e12) + " on H200, " + duration(moved / 2.039e12) + " on A100, " +
       duration(moved / 320e9) + " on T4";
  return s;
}

}  // namespace cudasim
