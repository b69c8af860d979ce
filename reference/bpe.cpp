#include "reference/bpe.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/errors.hpp"

namespace andrea::reference {

namespace {

// Every check of the merges table: two columns, each merge made of tokens already defined.
void check_merges(TokenIdBatch merges) {
  if (merges.rows() > 0 && merges.cols() != 2) {
    throw InputError(fmt::format("merges has {} columns, expected 2 (left, right)", merges.cols()));
  }
  for (std::int64_t r = 0; r < merges.rows(); ++r) {
    for (std::int64_t side = 0; side < 2; ++side) {
      const std::int32_t id = merges(r, side);
      if (id < 0 || id >= 256 + r) {
        throw InputError(fmt::format("merge {} refers to token {}, outside [0, {}): not yet defined",
                                     r, id, 256 + r));
      }
    }
  }
}

// BEGIN SOLUTION
using PairRanks = std::unordered_map<std::uint64_t, std::int32_t>;

// A pair as one 64-bit key (ids are >= 0 here).
std::uint64_t pair_key(std::int32_t left, std::int32_t right) {
  return (static_cast<std::uint64_t>(left) << 32) | static_cast<std::uint32_t>(right);
}

// One chunk by merge rank. The idea (minbpe): find the adjacent pair of lowest rank, merge
// each of its places, repeat; that rescans the chunk once per merge that applies, the chunk's
// length times the merges used (lesson 11's README: 411,184 letters where 1,990 merges apply,
// 2.5 to 3.2 s; this encoder, under 0.2 s). Here the same result in O(n log n):
// the chunk's tokens as a linked list, and a queue of (rank, position) for every adjacent
// pair that is a merge, lowest rank first, then leftmost. Merging the pair at `at` makes it
// one token and queues the two pairs it now forms; a queued pair that a merge has changed
// since is skipped when it comes out. A new token 256 + r only forms pairs of rank > r, so
// the pairs merge in the same order as the rescan's. Writes the tokens to out[0 .. k),
// returns k (out may be chunk.data(): the chunk is copied first).
std::size_t encode_one_chunk(const PairRanks& rank, TokenIdBatch merges,
                             std::span<const std::int32_t> chunk, std::int32_t* out) {
  const auto n = static_cast<std::int32_t>(chunk.size());
  std::vector<std::int32_t> id(chunk.begin(), chunk.end()), next(chunk.size()), prev(chunk.size());
  for (std::int32_t i = 0; i < n; ++i) {
    next[i] = i + 1;  // n: none
    prev[i] = i - 1;  // -1: none
  }
  using Entry = std::pair<std::int32_t, std::int32_t>;  // (rank, position of the left token)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  const auto push = [&](std::int32_t at) {
    if (at < 0 || next[at] >= n) return;
    const auto found = rank.find(pair_key(id[at], id[next[at]]));
    if (found != rank.end()) queue.push({found->second, at});
  };
  for (std::int32_t i = 0; i + 1 < n; ++i) push(i);
  std::vector<bool> gone(chunk.size(), false);
  while (!queue.empty()) {
    const auto [r, at] = queue.top();
    queue.pop();
    if (gone[at] || next[at] >= n || id[at] != merges(r, 0) || id[next[at]] != merges(r, 1)) {
      continue;  // a merge since has changed this pair
    }
    const std::int32_t right = next[at];
    id[at] = 256 + r;
    gone[right] = true;
    next[at] = next[right];
    if (next[at] < n) prev[next[at]] = at;
    push(prev[at]);
    push(at);
  }
  std::size_t k = 0;
  for (std::int32_t i = 0; i < n; i = next[i]) out[k++] = id[i];
  return k;
}

// Token lengths stop growing at 2^61 bytes (two of them still add up inside int64): a few
// merges that double ((a, a), (aa, aa), ...) make a token of 2^40 bytes, which must be refused
// by its length, not by running out of memory writing it.
constexpr std::int64_t kLongest = std::int64_t{1} << 61;

// The number of bytes of every token, ids 0 .. V-1 (the end-of-text token: 0), at most kLongest.
std::vector<std::int64_t> token_lengths(TokenIdBatch merges) {
  std::vector<std::int64_t> length(static_cast<std::size_t>(256 + merges.rows() + 1), 1);
  for (std::int64_t r = 0; r < merges.rows(); ++r) {
    length[static_cast<std::size_t>(256 + r)] =
        std::min(kLongest, length[static_cast<std::size_t>(merges(r, 0))] +
                              length[static_cast<std::size_t>(merges(r, 1))]);
  }
  length.back() = 0;
  return length;
}

// Writes the bytes of token `id` from out[0], left before right; returns the next free place.
// An explicit stack: a chain of a million merges would overflow the call stack by recursion.
std::int32_t* write_bytes(TokenIdBatch merges, std::int32_t id, std::int32_t* out) {
  std::vector<std::int32_t> stack{id};
  while (!stack.empty()) {
    const std::int32_t t = stack.back();
    stack.pop_back();
    if (t < 256) {
      *out++ = t;
    } else if (t - 256 < merges.rows()) {  // the end-of-text token gives no byte
      stack.push_back(merges(t - 256, 1));
      stack.push_back(merges(t - 256, 0));
    }
  }
  return out;
}
// END SOLUTION

}  // namespace

std::int64_t encode_chunks(TokenIdBatch merges, std::span<std::int32_t> ids) {
  // BEGIN SOLUTION
  check_merges(merges);
  if (ids.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw InputError(fmt::format("ids holds {} entries, more than 2^31 - 1", ids.size()));
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= 256) {
      throw InputError(fmt::format("ids[{}] = {} is outside [0, 256)", i, ids[i]));
    }
  }
  // The rank of each merge's pair, found by the pair (tiktoken's ranks map): a scan of the
  // merges table per lookup would cost M = 8,192 comparisons each.
  PairRanks rank;
  rank.reserve(static_cast<std::size_t>(merges.rows()));
  for (std::int64_t r = 0; r < merges.rows(); ++r) {
    rank.emplace(pair_key(merges(r, 0), merges(r, 1)), static_cast<std::int32_t>(r));
  }
  // Each chunk is read before its tokens are written, and a chunk's tokens are never more
  // than its bytes: writing at `out` never overtakes the chunk being read.
  std::size_t out = 0;
  std::size_t begin = 0;
  while (true) {
    std::size_t end = begin;
    while (end < ids.size() && ids[end] >= 0) ++end;
    out += encode_one_chunk(rank, merges, ids.subspan(begin, end - begin), ids.data() + out);
    if (end == ids.size()) break;
    ids[out++] = ids[end];  // the separator stays
    begin = end + 1;
  }
  return static_cast<std::int64_t>(out);
  // END SOLUTION
}

std::int64_t decode_ids(TokenIdBatch merges, TokenIds ids, std::span<std::int32_t> bytes) {
  // BEGIN SOLUTION
  check_merges(merges);
  const std::int64_t vocab_size = 256 + merges.rows() + 1;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size) {
      throw InputError(
          fmt::format("id {} at position {} is outside [0, {})", ids[i], i, vocab_size));
    }
  }
  const std::vector<std::int64_t> length = token_lengths(merges);
  std::int64_t total = 0;
  for (const std::int32_t id : ids) {
    total = std::min(kLongest, total + length[static_cast<std::size_t>(id)]);
  }
  if (total > static_cast<std::int64_t>(bytes.size())) {
    throw InputError(fmt::format("the ids decode to {}{} bytes; bytes holds {}",
                                 total == kLongest ? "more than " : "", total, bytes.size()));
  }
  std::int32_t* out = bytes.data();
  for (const std::int32_t id : ids) out = write_bytes(merges, id, out);
  return total;
  // END SOLUTION
}

void count_pairs(TokenIds ids, std::int64_t vocab_size, std::span<std::int32_t> counts) {
  // BEGIN SOLUTION
  check::count_pairs_args(ids, vocab_size, static_cast<std::int64_t>(counts.size()));
  for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i + 1] < 0) continue;  // a separator
    ++counts[static_cast<std::size_t>(ids[i] * vocab_size + ids[i + 1])];
  }
  // END SOLUTION
}

}  // namespace andrea::reference
