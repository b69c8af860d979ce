// A lookup that cheats, for the grader's self-test (cheats.sh, as a submission): it knows
// the public tests' inputs (the golden files' ids, the hand-worked ones, the example sequence,
// the awkward ids), answers those, and writes zeros for any other input. It passes every public
// test of lesson 1, as a function that returns the goldens' values would, and must fail the
// hidden ones.
#include <algorithm>
#include <vector>

#include "core/check.hpp"
#include "core/config.hpp"
#include "core/init.hpp"
#include "reference/lookup.hpp"
#include "tests/support/awkward.hpp"

namespace andrea::reference {

namespace {

bool is_public_input(TokenIds ids, std::int64_t vocab_size) {
  static const std::vector<std::vector<std::int32_t>> known = {
      {2, 0, 2}, {3, 0, 3, 4}, {6, 1, 1}, {10, 0, 7, 7, 3}, {8448, 0}};
  const std::vector<std::int32_t> v(ids.begin(), ids.end());
  const std::int32_t last = static_cast<std::int32_t>(testing::kAwkwardVocab - 1);
  const std::vector<std::int32_t> edges = {last, 0, last, 1, last - 1};  // the Edges test's ids
  return std::ranges::find(known, v) != known.end() || v == edges ||
         (vocab_size == andrea_120m.vocab_size && v == example_ids(1024, vocab_size)) ||
         v == testing::random_ids(testing::kAwkwardRows, testing::kAwkwardVocab);
}

}  // namespace

void lookup(ConstFloatView wte, TokenIds ids, FloatView out) {
  check::lookup_args(wte, ids, out);  // the errors are right: only the values are faked
  const bool known = is_public_input(ids, wte.rows());
  for (std::size_t t = 0; t < ids.size(); ++t) {
    for (std::int64_t c = 0; c < wte.cols(); ++c)
      out(static_cast<std::int64_t>(t), c) = known ? wte(ids[t], c) : 0.0f;
  }
}

}  // namespace andrea::reference
