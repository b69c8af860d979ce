// The byte-level BPE tokenizer: pre-split, training and its tie rule, encode by merge rank,
// decode, the merges file and its strict loader, against hand-worked cases and
// golden/tokenizer.json (golden/tokenizer.py, an independent pure-Python implementation).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "support/golden.hpp"
#include "tokenizer/bpe.hpp"

namespace {

using andrea::InputError;
using andrea::testing::golden_case;
using namespace andrea::tokenizer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> chunks_of(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string_view c : pre_split(text)) out.emplace_back(c);
  return out;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// The message of the InputError that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const Tokenizer& shipped() {
  static const Tokenizer tok = read_merges(ANDREA_SOURCE_DIR "/tokenizer/merges.txt");
  return tok;
}

TEST(PreSplit, SpacesJoinTheRunAfterThem) {
  EXPECT_THAT(chunks_of("the cat  sat\n"), ElementsAre("the", " cat", " ", " sat", "\n"));
  EXPECT_THAT(chunks_of("a, b"), ElementsAre("a", ",", " b"));
  EXPECT_THAT(chunks_of("x1.5 42"), ElementsAre("x", "1", ".", "5", " 42"));
  EXPECT_THAT(chunks_of("caf\xc3\xa9!"), ElementsAre("caf\xc3\xa9", "!"));
  EXPECT_THAT(chunks_of(" \nword\t b  "), ElementsAre(" \n", "word", "\t", " b", "  "));
  EXPECT_TRUE(chunks_of("").empty());
}

// The Wikipedia example "aaabdaaabac", worked by hand with the tie rule:
// 1. (a, a) count 4 -> 256: [256 a b d 256 a b a c]
// 2. (a, b) and (256, a) both count 2; the smaller pair (97, 98) wins -> 257
// 3. (256, 257) count 2 -> 258: [258 d 258 a c]
// 4. four pairs of count 1; the smallest is (a, c) = (97, 99) -> 259
TEST(Train, HandWorkedTieRule) {
  const Tokenizer tok = train("aaabdaaabac", 4);
  EXPECT_THAT(tok.merges, ElementsAre(Merge{97, 97}, Merge{97, 98}, Merge{256, 257}, Merge{97, 99}));
  EXPECT_EQ(tok.vocab_size(), 256 + 4 + 1);
  EXPECT_EQ(tok.end_of_text(), 260);
  EXPECT_THAT(encode(tok, "aaabdaaabac"), ElementsAre(258, 100, 258, 259));
}

// Chunks count by how often they occur: "ab" once, " ab" twice, " cd" once.
// (a, b) 3 -> 256; (' ', 256) 2 -> 257; (' ', c) and (c, d) 1, the smaller -> 258; (258, d) -> 259.
TEST(Train, ChunksWeightedAndNoMergeAcrossThem) {
  const Tokenizer tok = train("ab ab ab cd", 4);
  EXPECT_THAT(tok.merges, ElementsAre(Merge{97, 98}, Merge{32, 256}, Merge{32, 99}, Merge{258, 100}));
  EXPECT_THAT(encode(tok, " ab ab"), ElementsAre(257, 257));
  EXPECT_THAT(encode(tok, "abab"), ElementsAre(256, 256));  // (256, 256) was never merged
  EXPECT_THAT(encode(tok, " cd!"), ElementsAre(259, 33));
  EXPECT_EQ(error_of([] { train("ab ab ab cd", 5); }),
            "after 4 merges no adjacent pair is left in the corpus; 5 merges asked (a larger "
            "corpus, or fewer --merges)");
  EXPECT_THAT(error_of([] { train("ab", -1); }), HasSubstr("-1 merges is outside [0, 1000000]"));
}

// Runs of one byte: overlapping pairs count ("aaaaa" holds (a, a) four times) and a merge
// takes them left to right ("aaaaa" -> [256 256 a]).
// "aaaaa" 2: (a, a) 4 -> 256; (256, 256) and (256, a) count 1, the smaller (256, 97) -> 257.
// "aaaa aaa" 3: (a, a) 3 + 2 -> 256: [256 256], [' ' 256 a]; three pairs of count 1, the
// smallest (' ', 256) -> 257: [257 a]; then (256, 256) -> 258.
TEST(Train, RunsOfOneByteOverlap) {
  EXPECT_THAT(train("aaaaa", 2).merges, ElementsAre(Merge{97, 97}, Merge{256, 97}));
  EXPECT_THAT(train("aaaa aaa", 3).merges,
              ElementsAre(Merge{97, 97}, Merge{32, 256}, Merge{256, 256}));
  EXPECT_EQ(error_of([] { train("aaaa", 3); }),
            "after 2 merges no adjacent pair is left in the corpus; 3 merges asked (a larger "
            "corpus, or fewer --merges)");
}

// The rules at the top of tokenizer/bpe.hpp, as plainly as they read: every merge recounts
// every pair of every chunk (quadratic, fine for a few dozen bytes).
std::vector<Merge> recounting_train(std::string_view corpus, int merges) {
  std::vector<std::vector<std::int32_t>> chunks;
  for (const std::string_view c : pre_split(corpus)) {
    chunks.emplace_back();
    for (const char b : c) chunks.back().push_back(static_cast<unsigned char>(b));
  }
  std::vector<Merge> out;
  for (int r = 0; r < merges; ++r) {
    std::map<std::pair<std::int32_t, std::int32_t>, int> counts;  // ordered (left, right)
    for (const auto& c : chunks) {
      for (std::size_t i = 0; i + 1 < c.size(); ++i) ++counts[{c[i], c[i + 1]}];
    }
    if (counts.empty()) break;
    auto best = counts.begin();  // the first of the highest count: the smallest pair
    for (auto it = counts.begin(); it != counts.end(); ++it) {
      if (it->second > best->second) best = it;
    }
    const auto [left, right] = best->first;
    out.push_back({left, right});
    for (auto& c : chunks) {
      std::vector<std::int32_t> merged;
      for (std::size_t i = 0; i < c.size(); ++i) {
        const bool hit = i + 1 < c.size() && c[i] == left && c[i + 1] == right;
        merged.push_back(hit ? 256 + r : c[i]);
        if (hit) ++i;
      }
      c = std::move(merged);
    }
  }
  return out;
}

// The incremental trainer against the recounting one on 300 small pseudo-random corpora
// (fixed seed): runs of one letter, few letters, spaces and punctuation, so that ties,
// overlaps and repeated chunks are common. Each trains until its pairs run out.
TEST(Train, SameMergesAsRecountingEveryPair) {
  std::mt19937 rng(43);
  const std::vector<std::string> alphabets = {"a", "ab", "aab ", "ab  c1", "abcdefghij", "a b.a"};
  for (int t = 0; t < 300; ++t) {
    const std::string& alpha = alphabets[rng() % alphabets.size()];
    std::string corpus;
    const std::size_t length = 1 + rng() % 40;
    while (corpus.size() < length) {
      const char letter = alpha[rng() % alpha.size()];
      const std::size_t run = rng() % 3 == 0 ? 1 + rng() % 8 : 1;  // a run of one letter
      corpus.append(run, letter);
    }
    const std::vector<Merge> expected = recounting_train(corpus, 1000);
    SCOPED_TRACE("corpus '" + corpus + "'");
    EXPECT_EQ(train(corpus, static_cast<std::int64_t>(expected.size())).merges, expected);
    EXPECT_THAT(error_of([&] { train(corpus, static_cast<std::int64_t>(expected.size()) + 1); }),
                HasSubstr("after " + std::to_string(expected.size()) + " merges no adjacent pair"));
  }
}

// Encoding merges the lowest rank first, left to right, whatever the order of the bytes.
TEST(Encode, LowestRankFirst) {
  const Tokenizer tok{{{97, 97}, {97, 98}, {256, 257}, {97, 99}}};
  EXPECT_THAT(encode(tok, "aab"), ElementsAre(256, 98));  // (a, a) before (a, b): not [a, 257]
  EXPECT_THAT(encode(tok, "aaa"), ElementsAre(256, 97));
  EXPECT_THAT(encode(tok, "aaaa"), ElementsAre(256, 256));
  EXPECT_THAT(encode(tok, "ba"), ElementsAre(98, 97));
  EXPECT_TRUE(encode(tok, "").empty());
  EXPECT_EQ(decode(tok, std::vector<std::int32_t>{258, 100, 260}), "aaabd<|endoftext|>");
  EXPECT_EQ(token_bytes(tok, 258), "aaab");
}

// The rule of encode written the slow, obvious way: rescan the chunk for the lowest-rank pair,
// merge its leftmost occurrence, repeat (tiktoken's loop; encode() uses a queue instead).
std::vector<std::int32_t> naive_chunk(const Tokenizer& tok, std::string_view chunk) {
  std::vector<std::int32_t> ids;
  for (const char c : chunk) ids.push_back(static_cast<unsigned char>(c));
  while (true) {
    std::size_t best_rank = tok.merges.size(), at = 0;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
      for (std::size_t r = 0; r < best_rank; ++r) {
        if (tok.merges[r] == Merge{ids[i], ids[i + 1]}) best_rank = r, at = i;
      }
    }
    if (best_rank == tok.merges.size()) return ids;
    ids[at] = static_cast<std::int32_t>(byte_tokens + best_rank);
    ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
}

// Long chunks (a run of letters thousands of bytes long) encode as the slow rule says.
TEST(Encode, LongChunksAsTheRescanningLoop) {
  std::mt19937 rng(7);
  std::string corpus;
  for (int i = 0; i < 3000; ++i) corpus.push_back("aabbbc"[rng() % 6]);
  const Tokenizer tok = train(corpus, 40);
  for (int trial = 0; trial < 5; ++trial) {
    std::string chunk(2000, 'a');
    for (char& c : chunk) c = "aabbbc"[rng() % 6];
    EXPECT_EQ(encode(tok, chunk), naive_chunk(tok, chunk));
  }
}

TEST(Decode, RefusesIdsOutsideTheVocabulary) {
  const Tokenizer tok{{{97, 97}}};  // V = 258
  EXPECT_EQ(error_of([&] { decode(tok, std::vector<std::int32_t>{97, 258}); }),
            "id 258 at position 1 is outside [0, 258)");
  EXPECT_EQ(error_of([&] { decode(tok, std::vector<std::int32_t>{-1}); }),
            "id -1 at position 0 is outside [0, 258)");
  EXPECT_EQ(error_of([&] { token_bytes(tok, 300); }), "token 300 is outside [0, 258)");
}

TEST(Golden, SmallCorpusMergesAndEncodings) {
  const auto& c = golden_case("tokenizer", "small_corpus");
  const std::string corpus = from_hex(c.at("corpus_hex"));
  const Tokenizer tok = train(corpus, c.at("merges").get<std::int64_t>());
  ASSERT_EQ(tok.vocab_size(), c.at("vocab_size").get<std::int32_t>());
  std::vector<Merge> expected;
  for (const auto& m : c.at("expected_merges")) expected.push_back({m[0], m[1]});
  EXPECT_EQ(tok.merges, expected);
  for (const auto& e : c.at("encodings")) {
    const std::string bytes = from_hex(e.at("bytes_hex"));
    const std::vector<std::int32_t> ids = encode(tok, bytes);
    EXPECT_EQ(ids, e.at("ids").get<std::vector<std::int32_t>>()) << e.at("bytes_hex");
    EXPECT_EQ(decode(tok, ids), bytes);
  }
}

TEST(Golden, ShippedTokenizerEncodings) {
  const auto& c = golden_case("tokenizer", "shipped");
  EXPECT_EQ(shipped().vocab_size(), 8449);
  EXPECT_EQ(shipped().vocab_size(), c.at("vocab_size").get<std::int32_t>());
  for (const auto& e : c.at("encodings")) {
    const std::string bytes = from_hex(e.at("bytes_hex"));
    EXPECT_EQ(encode(shipped(), bytes), e.at("ids").get<std::vector<std::int32_t>>()) << bytes;
  }
}

// decode(encode(b)) == b for any bytes, valid UTF-8 or not.
TEST(RoundTrip, RandomBytes) {
  std::mt19937 rng(1337);
  const Tokenizer small = train("the cat sat on the mat; \xff\xfe the dog \x01\x02", 15);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes(rng() % 300, '\0');
    for (char& b : bytes) b = static_cast<char>(trial % 2 ? rng() % 256 : " abet\n\xc3"[rng() % 7]);
    EXPECT_EQ(decode(shipped(), encode(shipped(), bytes)), bytes);
    EXPECT_EQ(decode(small, encode(small, bytes)), bytes);
  }
}

TEST(MergesFile, WritesAndReadsBack) {
  const Tokenizer tok = train("aaabdaaabac", 4);
  const std::string text = merges_text(tok);
  EXPECT_EQ(text,
            "andrea-bpe vocab_size 261 merges 4\n"
            "256 97 97 # aa\n"
            "257 97 98 # ab\n"
            "258 256 257 # aaab\n"
            "259 97 99 # ac\n");
  EXPECT_EQ(parse_merges(text, "t").merges, tok.merges);
  EXPECT_EQ(merges_text(train(" \\", 1)), "andrea-bpe vocab_size 258 merges 1\n256 32 92 # \\x20\\x5c\n");
  EXPECT_EQ(parse_merges(merges_text(shipped()), "t").merges, shipped().merges);
}

TEST(MergesFile, StrictLoader) {
  const std::string head = "andrea-bpe vocab_size 259 merges 2\n";
  const auto error = [](const std::string& text) {
    return error_of([&] { parse_merges(text, "m.txt"); });
  };
  EXPECT_EQ(error(head + "256 97 97\n257 256 97\n"), "");
  EXPECT_EQ(error(head + "256 97 97\n"),
            "merges file m.txt: line 3: the file ends after 1 merges; the header says 2 (truncated?)");
  EXPECT_EQ(error(head + "256 97 97\n258 97 98\n"),
            "merges file m.txt: line 3: token 258 is out of order: token 257 comes next");
  EXPECT_EQ(error(head + "256 97 97\n257 257 97\n"),
            "merges file m.txt: line 3: token 257 is outside [0, 257): not yet defined");
  EXPECT_EQ(error("andrea-bpe vocab_size 8450 merges 8192\n"),
            "merges file m.txt: line 1: vocab_size 8450 is not 256 + 8192 merges + 1 end-of-text = 8449");
  EXPECT_EQ(error(head + "256 97 97\n257 97 97\n"),
            "merges file m.txt: line 3: the pair (97, 97) is merged already on line 2");
  EXPECT_EQ(error(head + "256 97 97\n257 256 97\n258 1 2\n"),
            "merges file m.txt: line 4: more merge lines than the 2 the header says");
  EXPECT_EQ(error(head + "256 97 x\n"), "merges file m.txt: line 2: right 'x' is not an integer");
  EXPECT_EQ(error(head + "256 97\n"),
            "merges file m.txt: line 2: expected 'token left right' (three ids), optionally then ' # "
            "comment'; the line holds 2 fields");
  EXPECT_EQ(error(""), "merges file m.txt: line 1: expected the header 'andrea-bpe vocab_size V merges M'");
  EXPECT_EQ(error("andrea-bpe vocab_size -3 merges 2\n"),
            "merges file m.txt: line 1: vocab_size -3 is not 256 + 2 merges + 1 end-of-text = 259");
  // The value and the bound are named, whatever the sign (issue 42).
  EXPECT_EQ(error(head + "256 -1 110\n"), "merges file m.txt: line 2: token -1 is outside [0, 256)");
  EXPECT_EQ(error("andrea-bpe vocab_size 255 merges -2\n"),
            "merges file m.txt: line 1: -2 merges is outside [0, 1000000]");
  EXPECT_EQ(error("andrea-bpe vocab_size 259 merges 2\r\n"),
            "merges file m.txt: line 1: it ends in '\\r' (a CRLF line end, as Windows writes): a "
            "merges file's lines end in '\\n' alone");
  EXPECT_EQ(error("andrea-bpe vocab_size 2000258 merges 2000001\n"),
            "merges file m.txt: line 1: 2000001 merges is outside [0, 1000000]");
  EXPECT_THAT(error_of([] { read_merges("/nonexistent/merges.txt"); }),
              HasSubstr("cannot open the merges file '/nonexistent/merges.txt'"));
}

// 40 merges, each of the last token with itself: token 295 holds 2^40 bytes. decode counts
// before it builds (issue 42): refused at once, naming the token and the bound.
TEST(Decode, CountsBeforeItBuilds) {
  Tokenizer doubling;
  doubling.merges.push_back({97, 97});
  for (std::int32_t t = 256; t < 295; ++t) doubling.merges.push_back({t, t});
  EXPECT_EQ(token_lengths(doubling)[295], std::int64_t{1} << 40);
  EXPECT_EQ(error_of([&] { decode(doubling, std::vector<std::int32_t>{97, 295}); }),
            "token 295 at position 1 decodes to 1,099,511,627,776 bytes, more than the "
            "268,435,456 bytes a decoded text may hold");
  EXPECT_EQ(error_of([&] { decode(doubling, std::vector<std::int32_t>{260, 260, 260}, 70); }),
            "the first 3 ids decode to 96 bytes, more than the 70 bytes a decoded text may hold");
  EXPECT_EQ(decode(doubling, std::vector<std::int32_t>{257, 296}), "aaaa<|endoftext|>");
  Tokenizer endless = doubling;  // lengths past 2^63 are counted as INT64_MAX, never wrapped
  for (std::int32_t t = 296; t < 400; ++t) endless.merges.push_back({t - 1, t - 1});
  EXPECT_EQ(token_lengths(endless)[399], INT64_MAX);
  EXPECT_THAT(error_of([&] { decode(endless, std::vector<std::int32_t>{399}); }),
              HasSubstr("decodes to at least 9,223,372,036,854,775,807 bytes"));
}

TEST(Corpus, BoundsOnWhatIsRead) {
  const std::string path = ::testing::TempDir() + "andrea_tokenizer_corpus.txt";
  const auto write = [&](const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  };
  write("");
  EXPECT_EQ(error_of([&] { read_corpus_bytes(path); }), "the corpus '" + path + "' is empty (0 bytes)");
  write(std::string("text\0more", 9));
  EXPECT_THAT(error_of([&] { read_corpus_bytes(path); }),
              HasSubstr("holds a NUL byte at offset 4: binary, not text"));
  write("0123456789");
  EXPECT_EQ(read_corpus_bytes(path), "0123456789");
  // What never ends is refused before a byte is read (core/input_file.hpp).
  EXPECT_EQ(error_of([&] { read_corpus_bytes("/dev/zero"); }),
            "cannot open the corpus '/dev/zero': it is a device, not a regular file");
  std::remove(path.c_str());
}

}  // namespace
