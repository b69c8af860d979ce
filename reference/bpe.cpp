#include "reference/bpe.hpp"

#include <fmt/format.h>
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
// The bytes of token `id` appended to `out` (left before right).
void append_bytes(TokenIdBatch merges, std::int32_t id, std::vector<std::int32_t>& out) {
  if (id < 256) {
    out.push_back(id);
    return;
  }
  if (id - 256 >= merges.rows()) return;  // the end-of-text token: no byte
  append_bytes(merges, merges(id - 256, 0), out);
  append_bytes(merges, merges(id - 256, 1), out);
}
// END SOLUTION

}  // namespace

std::int64_t encode_chunk(TokenIdBatch merges, std::span<std::int32_t> ids) {
  // BEGIN SOLUTION
  check_merges(merges);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= 256) {
      throw InputError(fmt::format("ids[{}] = {} is outside [0, 256)", i, ids[i]));
    }
  }
  std::size_t k = ids.size();
  while (k >= 2) {
    // The lowest merge rank among the adjacent pairs (a linear search over the merges:
    // tiktoken keeps a hash map from pair to rank; tokenizer/bpe.cpp does too).
    std::int64_t lowest = -1;
    for (std::size_t i = 0; i + 1 < k; ++i) {
      for (std::int64_t r = 0; r < merges.rows() && (lowest < 0 || r < lowest); ++r) {
        if (merges(r, 0) == ids[i] && merges(r, 1) == ids[i + 1]) lowest = r;
      }
    }
    if (lowest < 0) break;
    const std::int32_t left = merges(lowest, 0), right = merges(lowest, 1);
    std::size_t out = 0;
    for (std::size_t i = 0; i < k; ++out) {
      if (i + 1 < k && ids[i] == left && ids[i + 1] == right) {
        ids[out] = static_cast<std::int32_t>(256 + lowest);
        i += 2;
      } else {
        ids[out] = ids[i];
        i += 1;
      }
    }
    k = out;
  }
  return static_cast<std::int64_t>(k);
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
  std::vector<std::int32_t> out;
  for (const std::int32_t id : ids) append_bytes(merges, id, out);
  if (out.size() > bytes.size()) {
    throw InputError(
        fmt::format("the ids decode to {} bytes; bytes holds {}", out.size(), bytes.size()));
  }
  std::copy(out.begin(), out.end(), bytes.begin());
  return static_cast<std::int64_t>(out.size());
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
