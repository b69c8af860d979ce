#include "reference/vocab_parallel.hpp"

#include <algorithm>
#include <vector>

#include "core/check.hpp"
#include "reference/backward.hpp"

namespace andrea::reference {

void vocab_parallel_lookup(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                           FloatView out) {
  // BEGIN SOLUTION
  check::vocab_parallel_lookup_args(wte_shard, shard, ids, out);
  const TokenIds flat = ids.flat();
  for (std::int64_t q = 0; q < static_cast<std::int64_t>(flat.size()); ++q) {
    const std::int32_t id = flat[static_cast<std::size_t>(q)];
    const std::span<float> row = out.row(q);
    if (shard.owns(id)) {
      const std::span<const float> mine = wte_shard.row(id - shard.first);  // local row
      std::copy(mine.begin(), mine.end(), row.begin());
    } else {
      std::fill(row.begin(), row.end(), 0.0f);  // another rank's id: contributes zero
    }
  }
  // END SOLUTION
}

void vocab_parallel_wte_backward(TokenIdBatch ids, ConstFloatView dout, const VocabShard& shard,
                                 FloatView dwte_shard) {
  // BEGIN SOLUTION
  check::vocab_parallel_backward_args(ids, dout, shard, dwte_shard);
  const TokenIds flat = ids.flat();
  const auto owned =
      std::count_if(flat.begin(), flat.end(), [&](std::int32_t id) { return shard.owns(id); });
  if (owned == 0) return;  // none of the ids is this rank's: its gradient is zero
  // Keep the positions this rank owns, in ascending order, with their local ids ...
  std::vector<std::int32_t> local_ids;
  std::vector<float> local_dout;
  local_ids.reserve(static_cast<std::size_t>(owned));
  local_dout.reserve(static_cast<std::size_t>(owned * dout.cols()));
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(flat.size()); ++p) {
    const std::int32_t id = flat[static_cast<std::size_t>(p)];
    if (!shard.owns(id)) continue;
    local_ids.push_back(static_cast<std::int32_t>(id - shard.first));
    const std::span<const float> g = dout.row(p);
    local_dout.insert(local_dout.end(), g.begin(), g.end());
  }
  // ... and hand them to lesson 8's backward, which sums them in that order.
  const auto k = static_cast<std::int64_t>(owned);
  wte_backward(TokenIdBatch(local_ids.data(), 1, k),
               ConstFloatView(local_dout.data(), k, dout.cols()), dwte_shard);
  // END SOLUTION
}

}  // namespace andrea::reference
