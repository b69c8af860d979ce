#include "core/vocab_shard.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace andrea {

VocabShard vocab_shard(std::int64_t vocab_size, std::int64_t rank, std::int64_t ranks) {
  constexpr std::int64_t max_id_count = std::numeric_limits<std::int32_t>::max();  // ids are int32
  if (vocab_size < 1) throw InputError(fmt::format("vocab_size {} must be at least 1", vocab_size));
  if (vocab_size > max_id_count) {
    throw InputError(fmt::format("vocab_size {} is more than {}: token ids are int32", vocab_size,
                                 max_id_count));
  }
  if (ranks < 1) throw InputError(fmt::format("{} ranks: at least 1 is required", ranks));
  if (ranks > max_id_count)
    throw InputError(fmt::format("{} ranks: at most {}", ranks, max_id_count));
  if (rank < 0 || rank >= ranks) {
    throw InputError(fmt::format("rank {} is outside [0, {})", rank, ranks));
  }
  VocabShard s;
  s.vocab_size = vocab_size;
  s.padded_vocab = padded_vocab_size(vocab_size, ranks);
  s.rows = s.padded_vocab / ranks;
  const std::int64_t last_first = (ranks - 1) * s.rows;  // the last rank has the fewest real rows
  if (last_first >= vocab_size) {
    throw InputError(fmt::format(
        "{} ranks leave rank {} no real rows: its rows [{}, {}) start at or past vocab_size {}",
        ranks, ranks - 1, last_first, s.padded_vocab, vocab_size));
  }
  s.first = rank * s.rows;
  s.real_rows = std::min(s.rows, vocab_size - s.first);  // >= 1: the last rank has the fewest
  return s;
}

}  // namespace andrea
