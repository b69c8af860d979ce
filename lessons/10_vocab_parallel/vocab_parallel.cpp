// Lesson 10_vocab_parallel: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/vocab_parallel.hpp.
// Grade it: python3 lessons/grade.py -L L10
#include "reference/vocab_parallel.hpp"

#include <algorithm>
#include <vector>

#include "core/check.hpp"
#include "reference/backward.hpp"

namespace andrea::reference {

void vocab_parallel_lookup(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                           FloatView out) {
  // TODO(lesson 10_vocab_parallel): write vocab_parallel_lookup() here.
  throw NotImplemented("10_vocab_parallel/vocab_parallel.cpp", "vocab_parallel_lookup");
}

void vocab_parallel_wte_backward(TokenIdBatch ids, ConstFloatView dout, const VocabShard& shard,
                                 FloatView dwte_shard) {
  // TODO(lesson 10_vocab_parallel): write vocab_parallel_wte_backward() here.
  throw NotImplemented("10_vocab_parallel/vocab_parallel.cpp", "vocab_parallel_wte_backward");
}

}  // namespace andrea::reference
