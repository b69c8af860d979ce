// Lesson 11_tokenizer: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/bpe.hpp.
// Grade it: python3 lessons/grade.py -L L11
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

// TODO: helpers (pair_key, encode_one_chunk, token_lengths, write_bytes), about 81 lines in the solution.

}  // namespace

std::int64_t encode_chunks(TokenIdBatch merges, std::span<std::int32_t> ids) {
  // TODO(lesson 11_tokenizer): write encode_chunks() here.
  throw NotImplemented("11_tokenizer/bpe.cpp", "encode_chunks");
}

std::int64_t decode_ids(TokenIdBatch merges, TokenIds ids, std::span<std::int32_t> bytes) {
  // TODO(lesson 11_tokenizer): write decode_ids() here.
  throw NotImplemented("11_tokenizer/bpe.cpp", "decode_ids");
}

void count_pairs(TokenIds ids, std::int64_t vocab_size, std::span<std::int32_t> counts) {
  // TODO(lesson 11_tokenizer): write count_pairs() here.
  throw NotImplemented("11_tokenizer/bpe.cpp", "count_pairs");
}

}  // namespace andrea::reference
