// Lesson 11 — the tokenizer, hidden tests: a merges table, texts cut into chunks and pair ids
// drawn from the instructor's seed; encode_chunks, decode_ids (C++ step) and count_pairs (both
// steps) compared exactly with the course's solution run on the same input.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "grader/hidden/hidden.hpp"
#include "grader/hidden/solution.hpp"
#include "tests/support/backend.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/bpe.hpp"
#else
#include "reference/bpe.hpp"
#endif

namespace {

using namespace andrea;
using namespace andrea::hidden;

// Integers equal one by one; on failure the first position that differs, both values, the seed.
::testing::AssertionResult same_ints(const std::string& what, const std::vector<std::int32_t>& got,
                                     const std::vector<std::int32_t>& expected) {
  if (got == expected) return ::testing::AssertionSuccess();
  if (got.size() != expected.size()) {
    return ::testing::AssertionFailure() << what << ": " << got.size() << " values, expected "
                                         << expected.size() << "; " << seed_note();
  }
  std::size_t i = 0;
  while (got[i] == expected[i]) ++i;
  return ::testing::AssertionFailure() << what << ": first wrong value at [" << i << "] expected "
                                       << expected[i] << " got " << got[i] << "; " << seed_note();
}

#if !defined(ANDREA_BACKEND_CUDA)
// M merges over a small alphabet (bytes 'a'-'f' and the tokens made so far), so that a text in
// that alphabet holds many of them: row r takes each side from [0, 256 + r), mostly 'a'-'f' or
// a recent token.
// No pair is drawn twice: a trained tokenizer never merges the same pair twice.
std::vector<std::int32_t> drawn_merges(Draw& draw, std::int64_t m) {
  std::vector<std::int32_t> flat;
  std::set<std::pair<std::int32_t, std::int32_t>> drawn;
  for (std::int64_t r = 0; r < m; ++r) {
    std::int32_t side[2];
    do {
      for (std::int32_t& id : side) {
        const std::int64_t kind = draw.between(0, 9);
        id = static_cast<std::int32_t>(
            kind < 5 || r == 0
                ? draw.between('a', 'f')
                : (kind < 9 ? 256 + draw.between(std::max<std::int64_t>(0, r - 20), r - 1)
                            : draw.between(0, 255 + r)));
      }
    } while (!drawn.insert({side[0], side[1]}).second);
    flat.insert(flat.end(), {side[0], side[1]});
  }
  return flat;
}

// n bytes, mostly 'a'-'f', a separator (a negative id) every few bytes and now and then any byte.
std::vector<std::int32_t> drawn_text(Draw& draw, std::int64_t n) {
  std::vector<std::int32_t> ids;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t kind = draw.between(0, 19);
    ids.push_back(static_cast<std::int32_t>(kind == 0   ? -draw.between(1, 3)
                                            : kind == 1 ? draw.between(0, 255)
                                                        : draw.between('a', 'f')));
  }
  return ids;
}

TEST(HiddenBpe, EncodeAndDecodeDrawnText) {
  Draw draw("bpe/encode");
  for (int round = 0; round < 3; ++round) {
    const std::int64_t m = draw.between(1, 400);
    const std::vector<std::int32_t> flat = drawn_merges(draw, m);
    const TokenIdBatch merges(flat.data(), m, 2);
    const std::vector<std::int32_t> text = drawn_text(draw, draw.not_multiple_of_32(1, 5000));
    std::vector<std::int32_t> got = text, expected = text;
    const std::int64_t k = backend::encode_chunks(merges, got);
    const std::int64_t k_expected = solution::encode_chunks(merges, expected);
    const std::string what =
        "encode_chunks (" + std::to_string(m) + " merges, " + std::to_string(text.size()) + " ids)";
    ASSERT_TRUE(close_to(what + ": k, the number of tokens and separators", static_cast<double>(k),
                         static_cast<double>(k_expected), {0.0, 0.0}));
    EXPECT_TRUE(same_ints(what + ", every id (the rest left as it was)", got, expected));

    std::vector<std::int32_t> tokens, bytes;  // the tokens without the separators; the bytes
    for (std::int64_t i = 0; i < k_expected; ++i) {
      if (expected[static_cast<std::size_t>(i)] >= 0)
        tokens.push_back(expected[static_cast<std::size_t>(i)]);
    }
    for (const std::int32_t b : text) {
      if (b >= 0) bytes.push_back(b);
    }
    tokens.push_back(static_cast<std::int32_t>(256 + m));  // the end-of-text token: no byte
    std::vector<std::int32_t> back(bytes.size() + 3, -7), back_expected = back;
    const std::int64_t n = backend::decode_ids(merges, tokens, back);
    const std::int64_t n_expected = solution::decode_ids(merges, tokens, back_expected);
    EXPECT_TRUE(close_to("decode_ids: k", static_cast<double>(n), static_cast<double>(n_expected),
                         {0.0, 0.0}));
    EXPECT_TRUE(same_ints("decode_ids: the bytes (the rest left as it was)", back, back_expected));
  }
}

TEST(HiddenBpe, BadInputIsRefusedAndNothingWritten) {
  Draw draw("bpe/bad");
  const std::int64_t m = draw.between(1, 100);
  const std::vector<std::int32_t> flat = drawn_merges(draw, m);
  const TokenIdBatch merges(flat.data(), m, 2);
  std::vector<std::int32_t> text = drawn_text(draw, draw.between(2, 500));
  text[static_cast<std::size_t>(draw.between(0, static_cast<std::int64_t>(text.size()) - 1))] =
      static_cast<std::int32_t>(draw.between(256, 9000));
  std::vector<std::int32_t> got = text, scratch = text;
  EXPECT_TRUE(same_error(
      "encode_chunks with an id that is not a byte", [&] { backend::encode_chunks(merges, got); },
      [&] { solution::encode_chunks(merges, scratch); }));
  EXPECT_TRUE(same_ints("ids after a refused call", got, text));

  std::vector<std::int32_t> tokens = {97, 98};
  tokens.insert(tokens.begin() + draw.between(0, 2),
                static_cast<std::int32_t>(draw.between(0, 1) ? 257 + m + draw.between(0, 5)
                                                             : -draw.between(1, 5)));
  std::vector<std::int32_t> bytes(8, -7), bytes_scratch = bytes;
  EXPECT_TRUE(same_error(
      "decode_ids with an id outside [0, V)", [&] { backend::decode_ids(merges, tokens, bytes); },
      [&] { solution::decode_ids(merges, tokens, bytes_scratch); }));
  EXPECT_TRUE(same_ints("bytes after a refused call", bytes, std::vector<std::int32_t>(8, -7)));

  const std::vector<std::int32_t> text_ids = {
      97, static_cast<std::int32_t>(256 + draw.between(0, m - 1)), 98};
  std::vector<std::int32_t> small(2, -7), small_scratch = small;  // too few places for the bytes
  EXPECT_TRUE(same_error(
      "decode_ids into too small a buffer", [&] { backend::decode_ids(merges, text_ids, small); },
      [&] { solution::decode_ids(merges, text_ids, small_scratch); }));
  EXPECT_TRUE(same_ints("bytes after a refused call", small, std::vector<std::int32_t>(2, -7)));
}
#endif  // !ANDREA_BACKEND_CUDA

// Pair ids with separators and a popular stretch (draw.ids repeats one id), counts that start
// from drawn values (count_pairs accumulates).
template <class Fn>
void expect_counts(const std::string& what, Draw& draw, std::int64_t v, Fn count) {
  std::vector<std::int32_t> ids = draw.ids(draw.not_multiple_of_32(2, 20000), v);
  for (std::size_t i = 0; i < ids.size(); i += static_cast<std::size_t>(draw.between(1, 40))) {
    ids[i] = -1;
  }
  std::vector<std::int32_t> start(static_cast<std::size_t>(v * v));
  for (std::int32_t& c : start) c = static_cast<std::int32_t>(draw.between(0, 3));
  std::vector<std::int32_t> got = start, expected = start;
  count(ids, v, got);
  solution::count_pairs(ids, v, expected);
  EXPECT_TRUE(same_ints(
      what + " (V " + std::to_string(v) + ", " + std::to_string(ids.size()) + " ids): counts", got,
      expected));
}

TEST(HiddenBpe, CountPairsOfDrawnIds) {
  Draw draw("bpe/count");
  // V = 64: exactly one tile of 4,096 bins; 65: one bin more than a tile; then any V.
  for (const std::int64_t v : {std::int64_t{64}, std::int64_t{65}, draw.between(1, 300)}) {
    expect_counts("count_pairs", draw, v,
                  [](TokenIds ids, std::int64_t v, std::span<std::int32_t> c) {
                    backend::count_pairs(ids, v, c);
                  });
  }
}

#if defined(ANDREA_BACKEND_CUDA)
TEST(HiddenBpeAtomic, CountPairsOfDrawnIds) {
  Draw draw("bpe/count-atomic");
  for (const std::int64_t v : {std::int64_t{1}, draw.between(2, 300), draw.between(2, 300)}) {
    expect_counts("count_pairs_atomic", draw, v,
                  [](TokenIds ids, std::int64_t v, std::span<std::int32_t> c) {
                    backend::count_pairs_atomic(ids, v, c);
                  });
  }
}
#endif

}  // namespace
