// Initialisation shared by every backend: element i of a table is a pure
// function of (seed, table, i), so the C++ reference, the CUDA init kernel and
// the numpy golden generator all produce the same table.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/hd.hpp"
#include "core/philox.hpp"
#include "core/tensor.hpp"

namespace andrea {

/// Which table an element belongs to; it is word 2 of the Philox counter.
enum class Table : std::uint32_t { token = 0, position = 1, example_ids = 2 };

/// The default seed of the CLI and the golden files.
inline constexpr std::uint64_t default_seed = 1337;

/// Element i (flat, row-major) of a table, drawn as N(0, 1) / sqrt(d_model).
///   counter = (i low 32 bits, i high 32 bits, table, 0), key = (seed low, seed high)
///   u1 = (top 53 bits of words 0,1 + 1) / 2^53  in (0, 1]
///   u2 = (top 53 bits of words 2,3)     / 2^53  in [0, 1)
///   z  = sqrt(-2 ln u1) cos(2 pi u2)            (Box-Muller, in double)
/// The result is rounded to float32 once, at the end.
ANDREA_HD inline float init_value(std::uint64_t seed, Table table, std::int64_t i,
                                  std::int64_t d_model) {
  const auto index = static_cast<std::uint64_t>(i);
  const Philox4x32 r =
      philox4x32_10({{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                      static_cast<std::uint32_t>(table), 0u}},
                    static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  const std::uint64_t a = (std::uint64_t{r.v[0]} << 32 | r.v[1]) >> 11;
  const std::uint64_t b = (std::uint64_t{r.v[2]} << 32 | r.v[3]) >> 11;
  constexpr double kTwoPow53 = 9007199254740992.0;
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const double u1 = (static_cast<double>(a) + 1.0) / kTwoPow53;
  const double u2 = static_cast<double>(b) / kTwoPow53;
  const double z = sqrt(-2.0 * log(u1)) * cos(kTwoPi * u2);
  return static_cast<float>(z / sqrt(static_cast<double>(d_model)));
}

/// The lesson's example sequence of n token ids: 256, 1842, 7301, then for
/// t >= 3 word 0 of Philox((t, 0, 2, 0), key (seed)) mod vocab_size.
/// Requires vocab_size > 7301 (true for both presets).
std::vector<std::int32_t> example_ids(std::int64_t n, std::int64_t vocab_size,
                                      std::uint64_t seed = default_seed);

}  // namespace andrea
