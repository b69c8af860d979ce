#include "core/init.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace andrea {

std::vector<std::int32_t> example_ids(std::int64_t n, std::int64_t vocab_size, std::uint64_t seed) {
  constexpr std::int32_t kLessonIds[] = {256, 1842, 7301};
  if (vocab_size <= kLessonIds[2]) {
    throw InputError(
        fmt::format("the example sequence needs vocab_size > 7301, got {}", vocab_size));
  }
  std::vector<std::int32_t> ids;
  for (std::int64_t t = 0; t < n; ++t) {
    if (t < 3) {
      ids.push_back(kLessonIds[t]);
      continue;
    }
    const Philox4x32 r = philox4x32_10(
        {{static_cast<std::uint32_t>(t), 0u, static_cast<std::uint32_t>(Table::example_ids), 0u}},
        static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
    ids.push_back(static_cast<std::int32_t>(r.v[0] % static_cast<std::uint64_t>(vocab_size)));
  }
  return ids;
}

}  // namespace andrea
