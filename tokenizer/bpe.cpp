#include "tokenizer/bpe.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/numbers.hpp"
#include "core/tensor.hpp"
#include "reference/bpe.hpp"

namespace andrea::tokenizer {

namespace {

// The end-of-text token's bytes (GPT-2's).
constexpr std::string_view kEndOfText = "<|endoftext|>";

enum class ByteClass { letter, digit, space, other };

ByteClass class_of(unsigned char b) {
  if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b >= 0x80) return ByteClass::letter;
  if (b >= '0' && b <= '9') return ByteClass::digit;
  if (b == ' ' || (b >= '\t' && b <= '\r')) return ByteClass::space;
  return ByteClass::other;
}

ByteClass class_at(std::string_view text, std::size_t i) {
  return class_of(static_cast<unsigned char>(text[i]));
}

// A pair as one 64-bit key; keys order as (left, right) do, left first (ids are >= 0).
std::uint64_t key_of(std::int32_t left, std::int32_t right) {
  return (static_cast<std::uint64_t>(left) << 32) | static_cast<std::uint32_t>(right);
}
std::int32_t left_of(std::uint64_t key) { return static_cast<std::int32_t>(key >> 32); }
std::int32_t right_of(std::uint64_t key) { return static_cast<std::int32_t>(key & 0xffffffffu); }

// A candidate in the queue of pairs: a count the pair had (it may have fallen since) and the
// pair.
struct Candidate {
  std::int64_t count;
  std::uint64_t key;
};
// Highest count first, then the smallest (left, right): the tie rule.
struct Later {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.count != b.count ? a.count < b.count : a.key > b.key;
  }
};

// A pair during training: its count (weighted, over every chunk) and the positions where it
// may occur (an occurrence starts there; entries go stale when a merge changes a neighbour,
// and are checked when the pair is merged).
struct PairSlot {
  std::int64_t count = 0;
  std::vector<std::int32_t> at;
};

// The trainer's state: the distinct chunks laid end to end as doubly linked lists of tokens
// (one list a chunk; a merge unlinks the right token of each occurrence, so a position keeps
// its index and positions stay in text order), the pairs, and the queue that picks the next
// merge. The queue is lazy: a pair's count only falls between its pushes, so an entry whose
// count is above the pair's count is pushed again with the count it has now when it reaches
// the top, and one whose pair is gone is dropped.
class Trainer {
 public:
  explicit Trainer(std::string_view corpus);
  // The pair of highest count (ties: smallest (left, right)); false when none is left.
  bool best(std::uint64_t* key);
  // Replaces every occurrence of `key`, left to right in each chunk, without overlaps, by
  // `token` (a new id), and updates the counts of the pairs beside each occurrence.
  void merge(std::uint64_t key, std::int32_t token);

 private:
  void add_chunk(std::string_view chunk, std::int64_t count);
  void merge_at(std::int32_t i, std::int32_t token, std::vector<std::uint64_t>& fresh);
  void add(std::uint64_t key, std::int64_t weight, std::int32_t position);
  void remove(std::uint64_t key, std::int64_t weight);
  void push(std::uint64_t key);
  void compact_queue();

  std::vector<std::int32_t> id_;      // the token at each position; -1 once merged away
  std::vector<std::int32_t> prev_;    // the previous live position in its chunk, or -1
  std::vector<std::int32_t> next_;    // the next live position in its chunk, or -1
  std::vector<std::int64_t> weight_;  // how often the position's chunk occurs
  std::unordered_map<std::uint64_t, PairSlot> pairs_;  // every pair of count > 0
  std::vector<Candidate> queue_;                       // a heap ordered by Later
};

Trainer::Trainer(std::string_view corpus) {
  // Each distinct chunk once, with how often it occurs.
  std::unordered_map<std::string_view, std::int64_t> chunk_counts;
  for (const std::string_view chunk : pre_split(corpus)) ++chunk_counts[chunk];
  std::size_t positions = 0;
  for (const auto& [chunk, count] : chunk_counts) positions += chunk.size();
  if (positions > static_cast<std::size_t>(INT32_MAX)) {
    throw InputError(fmt::format("the corpus holds {} bytes of distinct chunks, more than {}",
                                 positions, INT32_MAX));
  }
  id_.reserve(positions);
  prev_.reserve(positions);
  next_.reserve(positions);
  weight_.reserve(positions);
  for (const auto& [chunk, count] : chunk_counts) add_chunk(chunk, count);
  for (const auto& [key, slot] : pairs_) queue_.push_back({slot.count, key});
  std::make_heap(queue_.begin(), queue_.end(), Later{});
}

// Appends the chunk's bytes as one linked list, and counts its pairs.
void Trainer::add_chunk(std::string_view chunk, std::int64_t count) {
  const auto first = static_cast<std::int32_t>(id_.size());
  for (std::size_t k = 0; k < chunk.size(); ++k) {
    const auto i = static_cast<std::int32_t>(first + k);
    id_.push_back(static_cast<unsigned char>(chunk[k]));
    prev_.push_back(k == 0 ? -1 : i - 1);
    next_.push_back(k + 1 == chunk.size() ? -1 : i + 1);
    weight_.push_back(count);
    if (k > 0) add(key_of(id_[i - 1], id_[i]), count, i - 1);
  }
}

void Trainer::add(std::uint64_t key, std::int64_t weight, std::int32_t position) {
  PairSlot& slot = pairs_[key];
  slot.count += weight;
  slot.at.push_back(position);
}

// A pair of count 0 is forgotten, with its positions (all stale by then).
void Trainer::remove(std::uint64_t key, std::int64_t weight) {
  const auto it = pairs_.find(key);
  it->second.count -= weight;
  if (it->second.count == 0) pairs_.erase(it);
}

void Trainer::push(std::uint64_t key) {
  const auto it = pairs_.find(key);
  if (it == pairs_.end()) return;
  queue_.push_back({it->second.count, key});
  std::push_heap(queue_.begin(), queue_.end(), Later{});
}

// Rebuilds the queue from the pairs when stale entries (of pairs gone) outnumber them, so
// that it never holds more than about twice the live pairs.
void Trainer::compact_queue() {
  if (queue_.size() < 1024 || queue_.size() < 2 * pairs_.size()) return;
  queue_.clear();
  for (const auto& [key, slot] : pairs_) queue_.push_back({slot.count, key});
  std::make_heap(queue_.begin(), queue_.end(), Later{});
}

bool Trainer::best(std::uint64_t* key) {
  compact_queue();
  while (!queue_.empty()) {
    std::pop_heap(queue_.begin(), queue_.end(), Later{});
    const Candidate top = queue_.back();
    queue_.pop_back();
    const auto it = pairs_.find(top.key);
    if (it == pairs_.end()) continue;  // the pair is gone
    if (it->second.count == top.count) {
      *key = top.key;
      return true;
    }
    push(top.key);  // its count fell since: queued again at the count it has now
  }
  return false;
}

void Trainer::merge(std::uint64_t key, std::int32_t token) {
  std::vector<std::int32_t> at = std::move(pairs_.at(key).at);
  std::sort(at.begin(), at.end());  // text order: left to right in each chunk
  at.erase(std::unique(at.begin(), at.end()), at.end());
  std::vector<std::uint64_t> fresh;  // the new pairs, each holding `token`
  const std::int32_t left = left_of(key), right = right_of(key);
  for (const std::int32_t i : at) {
    // An occurrence still there (not overlapping one just merged, not changed since).
    const std::int32_t j = next_[static_cast<std::size_t>(i)];
    if (id_[static_cast<std::size_t>(i)] == left && j >= 0 &&
        id_[static_cast<std::size_t>(j)] == right) {
      merge_at(i, token, fresh);
    }
  }
  std::sort(fresh.begin(), fresh.end());
  fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
  for (const std::uint64_t k : fresh) push(k);
}

// Merges the occurrence at position i (tokens at i and next_[i]) into `token`: the pair and
// its two neighbouring pairs lose the chunk's weight, the two new neighbouring pairs gain it.
void Trainer::merge_at(std::int32_t i, std::int32_t token, std::vector<std::uint64_t>& fresh) {
  const auto ui = static_cast<std::size_t>(i);
  const auto uj = static_cast<std::size_t>(next_[ui]);
  const std::int32_t p = prev_[ui], n = next_[uj];
  const std::int64_t w = weight_[ui];
  remove(key_of(id_[ui], id_[uj]), w);
  if (p >= 0) {
    const std::int32_t before = id_[static_cast<std::size_t>(p)];
    remove(key_of(before, id_[ui]), w);
    add(key_of(before, token), w, p);
    fresh.push_back(key_of(before, token));
  }
  if (n >= 0) {
    const std::int32_t after = id_[static_cast<std::size_t>(n)];
    remove(key_of(id_[uj], after), w);
    add(key_of(token, after), w, i);
    fresh.push_back(key_of(token, after));
    prev_[static_cast<std::size_t>(n)] = i;
  }
  id_[ui] = token;
  id_[uj] = -1;
  next_[ui] = n;
}

}  // namespace

std::string escaped(std::string_view bytes) {
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= '!' && b <= '~' && b != '\\') {
      out.push_back(c);
    } else {
      out += fmt::format("\\x{:02x}", b);
    }
  }
  return out;
}

namespace {

// The pieces of every token, ids 0 .. V-1.
std::vector<std::string> all_token_bytes(const Tokenizer& tok) {
  std::vector<std::string> pieces;
  pieces.reserve(static_cast<std::size_t>(tok.vocab_size()));
  for (int b = 0; b < byte_tokens; ++b) pieces.emplace_back(1, static_cast<char>(b));
  for (const Merge& m : tok.merges) {
    pieces.push_back(pieces[static_cast<std::size_t>(m.left)] +
                     pieces[static_cast<std::size_t>(m.right)]);
  }
  pieces.emplace_back(kEndOfText);
  return pieces;
}

// The fields of a line, split at spaces (a run of them is one separator).
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t end = std::min(line.find(' ', at), line.size());
    if (end > at) fields.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  return fields;
}

// The lines of a merges file, split at '\n' (the last newline ends the last line, no empty
// line follows it). Throws the refusal of `fail` at the first line that ends in '\r'.
template <class Fail>
std::vector<std::string_view> lines_of(std::string_view text, const Fail& fail) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    if (lines.back().ends_with('\r')) {
      throw fail(lines.size(),
                 "it ends in '\\r' (a CRLF line end, as Windows writes): a merges "
                 "file's lines end in '\\n' alone");
    }
    at = end + 1;
  }
  return lines;
}

// Field `text` of line `line` (named `name` in messages: "vocab_size", "left") as an integer
// by the rule of core/numbers.hpp; else the refusal of `fail`, with the value.
template <class Fail>
std::int64_t integer_field(std::string_view text, std::string_view name, std::size_t line,
                           const Fail& fail) {
  const std::optional<std::int64_t> value = to_integer<std::int64_t>(text);
  if (!value) throw fail(line, fmt::format("{} '{}' is not an integer", name, text));
  return *value;
}

// Appends the bytes of token `id` (in [0, V)) to `out`: a byte, or its merge's two tokens,
// depth-first, left before right.
void append_token(const Tokenizer& tok, std::int32_t id, std::string& out) {
  if (id == tok.end_of_text()) {
    out += kEndOfText;
    return;
  }
  std::vector<std::int32_t> stack{id};
  while (!stack.empty()) {
    const std::int32_t t = stack.back();
    stack.pop_back();
    if (t < byte_tokens) {
      out.push_back(static_cast<char>(t));
    } else {
      const Merge& m = tok.merges[static_cast<std::size_t>(t - byte_tokens)];
      stack.push_back(m.right);
      stack.push_back(m.left);
    }
  }
}

// A length as a message prints it; INT64_MAX stands for "that or more" (a saturated count).
std::string bytes_text(std::int64_t n) {
  return n == INT64_MAX ? fmt::format("at least {} bytes", grouped(n))
                        : fmt::format("{} bytes", grouped(n));
}

// The refusal of decoded bytes past max_bytes, found at ids[at] (`length` bytes; `total`
// bytes so far): the token named when it alone is too long.
InputError too_long(std::span<const std::int32_t> ids, std::size_t at, std::int64_t length,
                    std::int64_t total, std::int64_t max_bytes) {
  const std::string bound =
      fmt::format("more than the {} a decoded text may hold", bytes_text(max_bytes));
  if (length > max_bytes) {
    return InputError(fmt::format("token {} at position {} decodes to {}, {}", ids[at], at,
                                  bytes_text(length), bound));
  }
  return InputError(
      fmt::format("the first {} ids decode to {}, {}", at + 1, bytes_text(total), bound));
}

}  // namespace

std::vector<std::string_view> pre_split(std::string_view text) {
  std::vector<std::string_view> chunks;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    if (text[i] == ' ' && i + 1 < text.size() && class_at(text, i + 1) != ByteClass::space) {
      ++i;  // one space joins the run after it
    }
    const ByteClass run = class_at(text, i);
    while (i < text.size() && class_at(text, i) == run) ++i;
    // A run of spaces before a non-space leaves its last ' ' to the next chunk.
    if (run == ByteClass::space && i - start > 1 && i < text.size() && text[i - 1] == ' ') --i;
    chunks.push_back(text.substr(start, i - start));
  }
  return chunks;
}

Tokenizer train(std::string_view corpus, std::int64_t merges) {
  if (merges < 0 || merges > max_merges) {
    throw InputError(fmt::format("{} merges is outside [0, {}]", merges, max_merges));
  }
  Trainer trainer(corpus);
  Tokenizer tok;
  tok.merges.reserve(static_cast<std::size_t>(merges));
  for (std::int64_t r = 0; r < merges; ++r) {
    std::uint64_t key = 0;
    if (!trainer.best(&key)) {
      throw InputError(fmt::format(
          "after {} merges no adjacent pair is left in the corpus; {} merges asked (a larger "
          "corpus, or fewer --merges)",
          r, merges));
    }
    tok.merges.push_back({left_of(key), right_of(key)});
    trainer.merge(key, static_cast<std::int32_t>(byte_tokens + r));
  }
  return tok;
}

std::vector<std::int32_t> encode(const Tokenizer& tok, std::string_view bytes) {
  // Each distinct chunk once (a text repeats its words), a separator between two: one call.
  std::unordered_map<std::string_view, std::size_t> distinct;  // chunk -> its index
  std::vector<std::string_view> chunks = pre_split(bytes);
  std::vector<std::int32_t> ids;
  for (const std::string_view chunk : chunks) {
    if (!distinct.try_emplace(chunk, distinct.size()).second) continue;
    if (!ids.empty()) ids.push_back(-1);
    for (const char c : chunk) ids.push_back(static_cast<unsigned char>(c));
  }
  std::vector<std::int32_t> merges;  // the (M, 2) table
  merges.reserve(2 * tok.merges.size());
  for (const Merge& m : tok.merges) {
    merges.push_back(m.left);
    merges.push_back(m.right);
  }
  const std::int64_t k = reference::encode_chunks(
      TokenIdBatch(merges.data(), static_cast<std::int64_t>(tok.merges.size()), 2), ids);
  // Where each distinct chunk's tokens start in ids[0 .. k).
  std::vector<std::size_t> starts{0};
  for (std::int64_t i = 0; i < k; ++i) {
    if (ids[static_cast<std::size_t>(i)] < 0) starts.push_back(static_cast<std::size_t>(i) + 1);
  }
  starts.push_back(static_cast<std::size_t>(k) + 1);
  std::vector<std::int32_t> out;
  for (const std::string_view chunk : chunks) {
    const std::size_t d = distinct.at(chunk);
    out.insert(out.end(), ids.begin() + static_cast<std::ptrdiff_t>(starts[d]),
               ids.begin() + static_cast<std::ptrdiff_t>(starts[d + 1] - 1));
  }
  return out;
}

std::string token_bytes(const Tokenizer& tok, std::int32_t id) {
  if (id < 0 || id >= tok.vocab_size()) {
    throw InputError(fmt::format("token {} is outside [0, {})", id, tok.vocab_size()));
  }
  std::string out;
  append_token(tok, id, out);
  return out;
}

std::vector<std::int64_t> token_lengths(const Tokenizer& tok) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(byte_tokens), 1);
  lengths.reserve(static_cast<std::size_t>(tok.vocab_size()));
  for (const Merge& m : tok.merges) {
    const std::int64_t left = lengths[static_cast<std::size_t>(m.left)];
    const std::int64_t right = lengths[static_cast<std::size_t>(m.right)];
    lengths.push_back(left > INT64_MAX - right ? INT64_MAX : left + right);
  }
  lengths.push_back(static_cast<std::int64_t>(kEndOfText.size()));
  return lengths;
}

std::string decode(const Tokenizer& tok, std::span<const std::int32_t> ids,
                   std::int64_t max_bytes) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= tok.vocab_size()) {
      throw InputError(
          fmt::format("id {} at position {} is outside [0, {})", ids[i], i, tok.vocab_size()));
    }
  }
  const std::vector<std::int64_t> lengths = token_lengths(tok);
  std::int64_t total = 0;  // counted first: the bytes are built only when they fit
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::int64_t length = lengths[static_cast<std::size_t>(ids[i])];
    total = total > INT64_MAX - length ? INT64_MAX : total + length;
    if (total > max_bytes) throw too_long(ids, i, length, total, max_bytes);
  }
  std::string out;
  out.reserve(static_cast<std::size_t>(total));
  for (const std::int32_t id : ids) append_token(tok, id, out);
  return out;
}

std::string merges_text(const Tokenizer& tok) {
  const std::vector<std::string> pieces = all_token_bytes(tok);
  std::string out =
      fmt::format("andrea-bpe vocab_size {} merges {}\n", tok.vocab_size(), tok.merges.size());
  for (std::size_t r = 0; r < tok.merges.size(); ++r) {
    const std::size_t id = byte_tokens + r;
    out += fmt::format("{} {} {} # {}\n", id, tok.merges[r].left, tok.merges[r].right,
                       escaped(pieces[id]));
  }
  return out;
}

namespace {

// A merges file's refusal: "merges file m.txt: line 3: <what>".
struct MergesError {
  std::string_view source;
  InputError operator()(std::size_t line, const std::string& what) const {
    return InputError(fmt::format("merges file {}: line {}: {}", source, line, what));
  }
};

// The header "andrea-bpe vocab_size V merges M" (line 1): the number of merges M.
std::int64_t header_merges(std::string_view line, const MergesError& fail) {
  const std::vector<std::string_view> head = fields_of(line);
  if (head.size() != 5 || head[0] != "andrea-bpe" || head[1] != "vocab_size" ||
      head[3] != "merges") {
    throw fail(1, "expected the header 'andrea-bpe vocab_size V merges M'");
  }
  const std::int64_t merges = integer_field(head[4], "merges", 1, fail);
  if (merges < 0 || merges > max_merges) {
    throw fail(1, fmt::format("{} merges is outside [0, {}]", merges, max_merges));
  }
  const std::int64_t vocab_size = integer_field(head[2], "vocab_size", 1, fail);
  if (vocab_size != byte_tokens + merges + 1) {
    throw fail(1, fmt::format("vocab_size {} is not 256 + {} merges + 1 end-of-text = {}",
                              vocab_size, merges, byte_tokens + merges + 1));
  }
  return merges;
}

// The merge on line `number`, "token left right" with an optional " # comment", where
// `token` must be 256 + the merges read so far (`expected`) and left, right below it.
Merge merge_line(std::string_view line, std::int64_t expected, std::size_t number,
                 const MergesError& fail) {
  const std::vector<std::string_view> fields = fields_of(line.substr(0, line.find(" #")));
  if (fields.size() != 3) {
    throw fail(number, fmt::format("expected 'token left right' (three ids), optionally then ' # "
                                   "comment'; the line holds {} fields",
                                   fields.size()));
  }
  const std::int64_t id = integer_field(fields[0], "token", number, fail);
  if (id != expected) {
    throw fail(number, fmt::format("token {} is out of order: token {} comes next", id, expected));
  }
  const auto part = [&](std::string_view text, std::string_view name) {
    const std::int64_t value = integer_field(text, name, number, fail);
    if (value < 0 || value >= expected) {
      throw fail(number, fmt::format("token {} is outside [0, {}){}", value, expected,
                                     value < 0 ? "" : ": not yet defined"));
    }
    return static_cast<std::int32_t>(value);
  };
  return {part(fields[1], "left"), part(fields[2], "right")};
}

}  // namespace

Tokenizer parse_merges(std::string_view text, std::string_view source) {
  const MergesError fail{source};
  const std::vector<std::string_view> lines = lines_of(text, fail);
  const std::int64_t merges = header_merges(lines.empty() ? "" : lines[0], fail);
  Tokenizer tok;
  tok.merges.reserve(static_cast<std::size_t>(merges));
  std::unordered_map<std::uint64_t, std::size_t> first_line;  // each pair's line
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (i + 1 == lines.size() && lines[i].empty()) break;  // a blank last line
    if (static_cast<std::int64_t>(tok.merges.size()) == merges) {
      throw fail(i + 1, fmt::format("more merge lines than the {} the header says", merges));
    }
    const Merge m = merge_line(lines[i], byte_tokens + static_cast<std::int64_t>(tok.merges.size()),
                               i + 1, fail);
    const auto [it, fresh] = first_line.emplace(key_of(m.left, m.right), i + 1);
    if (!fresh) {
      throw fail(i + 1, fmt::format("the pair ({}, {}) is merged already on line {}", m.left,
                                    m.right, it->second));
    }
    tok.merges.push_back(m);
  }
  if (static_cast<std::int64_t>(tok.merges.size()) != merges) {
    throw fail(tok.merges.size() + 2,
               fmt::format("the file ends after {} merges; the header says {} (truncated?)",
                           tok.merges.size(), merges));
  }
  return tok;
}

Tokenizer read_merges(const std::string& path) {
  return parse_merges(read_input_file(path, "the merges file"), path);
}

std::string read_corpus_bytes(const std::string& path) {
  std::string bytes = read_input_file(path, "the corpus");
  if (const auto nul = bytes.find('\0'); nul != std::string::npos) {
    throw InputError(fmt::format(
        "the corpus '{}' holds a NUL byte at offset {}: binary, not text (a corpus is text "
        "without NUL bytes, at most {} bytes)",
        path, nul, max_text_file_bytes));
  }
  if (bytes.empty()) throw InputError(fmt::format("the corpus '{}' is empty (0 bytes)", path));
  return bytes;
}

}  // namespace andrea::tokenizer
