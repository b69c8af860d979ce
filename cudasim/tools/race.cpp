// racecheck: a hazard is two threads of one block touching the same byte between the same two
// barriers, at least one writing, not both atomically (NVIDIA compute-sanitizer's racecheck
// reports the same three kinds: RAW, WAR, WAW); a plain read against an atomic write is none
// (the CAS-loop idiom). A __syncthreads() orders every thread of the
// block; a warp operation (__syncwarp, a shuffle, a vote) orders the lanes of its warp. Lanes of
// one warp are ordered by nothing else: since Volta a warp's lanes may run apart (independent
// thread scheduling), so warp-synchronous code without __syncwarp() races. The barrier of a
// cooperative-groups tile of several warps orders the threads of that tile.
//
// The shadow: for each 4-byte word touched since the last __syncthreads(), its last writer and
// up to two readers (thread, bytes, code address, the warp's barrier count at the time). A
// __syncthreads() empties it (one counter), so memory costs what one interval touches.
#include <set>
#include <tuple>
#include <vector>

#include "cudasim/block.hpp"
#include "cudasim/tools/internal.hpp"

namespace cudasim::tools::race {
namespace {

constexpr std::uint16_t kNobody = 0xffff;

struct Access {
  std::uintptr_t pc = 0;
  std::uint32_t epoch = 0;       // warp_epoch of its warp when it happened
  std::uint32_t tile_epoch = 0;  // tile_epoch of its warp when it happened
  std::uint16_t tid = kNobody;
  std::uint8_t mask = 0;  // bytes of the word
  bool atomic = false;
};

struct Slot {
  std::uintptr_t word = 0;
  std::uint32_t gen = 0;  // valid while equal to State::gen
  Access writer, reader[2];
};

struct Hazard {
  const char* kind;  // "RAW", "WAR", "WAW"
  unsigned first_tid, second_tid;
  std::uintptr_t first_pc, second_pc;
  std::string block, where, first_thread, second_thread;
};

struct State {
  std::vector<Slot> slots = std::vector<Slot>(1 << 12);
  std::size_t used = 0;
  std::uint32_t gen = 1;
  std::vector<std::uint32_t> warp_epoch;
  // Per warp: the tile barriers of several warps it passed, and the threads of the last one.
  std::vector<std::uint32_t> tile_epoch;
  std::vector<std::pair<unsigned, unsigned>> tile;                         // [first, last)
  std::vector<Hazard> hazards;                                             // the first few
  std::set<std::tuple<const char*, std::uintptr_t, std::uintptr_t>> seen;  // distinct pairs
  std::uint64_t count = 0;
};
State g;

std::size_t hash(std::uintptr_t word) { return (word * 0x9e3779b97f4a7c15ull) >> 20; }

void grow() {
  std::vector<Slot> old(g.slots.size() * 2);
  old.swap(g.slots);
  const std::size_t mask = g.slots.size() - 1;
  for (const Slot& s : old) {
    if (s.gen != g.gen) continue;
    std::size_t i = hash(s.word) & mask;
    while (g.slots[i].gen == g.gen) i = (i + 1) & mask;
    g.slots[i] = s;
  }
}

Slot& find(std::uintptr_t word) {
  if (2 * (g.used + 1) > g.slots.size()) grow();
  const std::size_t mask = g.slots.size() - 1;
  for (std::size_t i = hash(word) & mask;; i = (i + 1) & mask) {
    Slot& s = g.slots[i];
    if (s.gen != g.gen) {
      s = Slot{};
      s.word = word;
      s.gen = g.gen;
      ++g.used;
      return s;
    }
    if (s.word == word) return s;
  }
}

void found(const char* kind, const Access& first, unsigned tid, std::uintptr_t pc,
           std::uintptr_t address, const Region& r) {
  ++g.count;
  if (!g.seen.insert({kind, first.pc, pc}).second || g.hazards.size() >= 8) return;
  g.hazards.push_back({kind, first.tid, tid, first.pc, pc, xyz(blockIdx), describe(r, address),
                       thread_name(first.tid), thread_name(tid)});
}

// Whether a tile barrier that both x's thread (after x) and thread tid passed lies between them:
// x's warp has passed one since, and it held both threads (tid, running now, has left it).
bool tile_ordered(const Access& x, unsigned tid) {
  const unsigned w = x.tid / 32u;
  const auto [first, last] = g.tile[w];
  return x.tile_epoch < g.tile_epoch[w] && tid >= first && tid < last && x.tid >= first &&
         x.tid < last;
}

}  // namespace

void launch_begin() {
  g.hazards.clear();
  g.seen.clear();
  g.count = 0;
}

void block_begin(unsigned threads) {
  ++g.gen;
  g.used = 0;
  g.warp_epoch.assign((threads + 31) / 32, 0);
  g.tile_epoch.assign((threads + 31) / 32, 0);
  g.tile.assign((threads + 31) / 32, {0, 0});
}

void block_synced() {
  ++g.gen;
  g.used = 0;
}

void warp_synced(unsigned w) { ++g.warp_epoch[w]; }

void tile_synced(unsigned first, unsigned count) {
  for (unsigned w = first / 32; w < (first + count + 31) / 32 && w < g.tile.size(); ++w) {
    ++g.tile_epoch[w];
    g.tile[w] = {first, first + count};
  }
}

void access(std::uintptr_t a, std::size_t size, unsigned kind, std::uintptr_t pc, unsigned tid,
            const Region& r) {
  const std::uint32_t now = g.warp_epoch[tid / 32];
  const bool atomic = (kind & kAtomic) != 0;
  const Access me{pc, now, g.tile_epoch[tid / 32], static_cast<std::uint16_t>(tid), 0, atomic};
  for (std::uintptr_t word = a >> 2; word <= (a + size - 1) >> 2; ++word) {
    const std::uintptr_t lo = std::max(a, word << 2), hi = std::min(a + size, (word + 1) << 2);
    const auto mask = static_cast<std::uint8_t>(((1u << (hi - lo)) - 1) << (lo & 3));
    Slot& s = find(word);
    // Unordered with this access: another thread, the same bytes, not both atomic, and no
    // __syncwarp() since, if it was a lane of the same warp.
    auto unordered = [&](const Access& x) {
      return x.tid != kNobody && x.tid != tid && (x.mask & mask) != 0 && !(x.atomic && atomic) &&
             !(x.tid / 32 == tid / 32 && x.epoch < now) && !tile_ordered(x, tid);
    };
    const std::uintptr_t at = std::max(a, lo);
    // A plain read against an atomic write is no hazard: the compare-and-swap loop of the
    // CUDA Programming Guide reads the old value plainly, and the CAS checks it.
    if ((kind & kRead) != 0 && (kind & kWrite) == 0 && unordered(s.writer) && !s.writer.atomic) {
      found("RAW", s.writer, tid, pc, at, r);
    }
    if ((kind & kWrite) != 0) {
      if (unordered(s.writer)) {
        found((kind & kRead) != 0 ? "RAW" : "WAW", s.writer, tid, pc, at, r);
      }
      for (const Access& x : s.reader) {
        if (unordered(x) && !atomic) found("WAR", x, tid, pc, at, r);
      }
    }
    if ((kind & kRead) != 0) {  // remember this reader, in a free slot or its own
      Access* slot = nullptr;
      for (Access& x : s.reader) {
        if (x.tid == tid) slot = &x;
      }
      for (Access& x : s.reader) {
        if (slot == nullptr && (x.tid == kNobody || (x.tid / 32 == tid / 32 && x.epoch < now) ||
                                tile_ordered(x, tid))) {
          slot = &x;
        }
      }
      if (slot != nullptr) {
        const std::uint8_t bytes = slot->tid == tid ? slot->mask | mask : mask;
        const bool both = slot->tid == tid ? slot->atomic && atomic : atomic;
        *slot = me;
        slot->mask = bytes;
        slot->atomic = both;
      }
    }
    if ((kind & kWrite) != 0) {
      const std::uint8_t bytes = s.writer.tid == tid ? s.writer.mask | mask : mask;
      const bool both = s.writer.tid == tid ? s.writer.atomic && atomic : atomic;
      s.writer = me;
      s.writer.mask = bytes;
      s.writer.atomic = both;
    }
  }
}

std::string report() {
  if (g.hazards.empty()) return {};
  const Hazard& h = g.hazards.front();
  const char* name = h.kind[0] == 'R'   ? "read-after-write"
                     : h.kind[2] == 'R' ? "write-after-read"
                                        : "write-after-write";
  const char* first_did = h.kind[2] == 'W' ? "wrote" : "read";
  const char* second_did = h.kind[0] == 'R' ? "read" : "wrote";
  std::string s = "kernel '" + std::string(current_launch().name) + "' block " + h.block + ": " +
                  name + " race (" + h.kind + ") on " + h.where + ":\n  thread " + h.first_thread +
                  " " + first_did + " it " + pc_token(h.first_pc) + "\n  thread " +
                  h.second_thread + " " + second_did + " it " + pc_token(h.second_pc) + "\n  ";
  if (h.first_tid / 32 == h.second_tid / 32) {
    s += "both in warp " + std::to_string(h.first_tid / 32) +
         ", with no __syncwarp() between them: the lanes of a warp are not ordered without one "
         "(independent thread scheduling, compute capability 7.0 and later)";
  } else {
    s += "with no __syncthreads() between them";
  }
  s += " (racecheck: " + with_commas(g.count) + " hazard" + (g.count == 1 ? "" : "s") +
       " in this launch";
  if (g.hazards.size() > 1) {
    s += "; also:";
    for (std::size_t i = 1; i < g.hazards.size(); ++i) {
      const Hazard& o = g.hazards[i];
      s += "\n    " + std::string(o.kind) + " " + pc_token(o.first_pc) + ", " +
           pc_token(o.second_pc);
    }
  }
  return s + ")";
}

}  // namespace cudasim::tools::race
