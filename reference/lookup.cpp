#include "reference/lookup.hpp"

#include <algorithm>

#include "core/check.hpp"

namespace andrea::reference {

void lookup(ConstFloatView wte, TokenIds ids, FloatView out) {
  // BEGIN SOLUTION
  check::lookup_args(wte, ids, out);  // first, so a bad id leaves out untouched

  for (std::size_t t = 0; t < ids.size(); ++t) {
    const auto row = wte.row(ids[t]);  // an index, no arithmetic
    std::copy(row.begin(), row.end(), out.row(static_cast<std::int64_t>(t)).begin());
  }
  // END SOLUTION
}

}  // namespace andrea::reference
