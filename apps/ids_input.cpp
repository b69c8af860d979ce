#include "apps/ids_input.hpp"

#include <fmt/format.h>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/numbers.hpp"

namespace andrea::cli {

namespace {

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Calls take(token) for each run of non-separators in text; returns where the last
// whole token ends: text.size() when `whole`, else the start of an unfinished last run.
template <class Take>
std::size_t for_each_token(std::string_view text, bool whole, Take&& take) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (is_separator(text[pos])) {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < text.size() && !is_separator(text[end])) ++end;
    if (end == text.size() && !whole) return pos;  // the run may go on in the next chunk
    if (!take(text.substr(pos, end - pos))) return end;
    pos = end;
  }
  return text.size();
}

// The longest entry read as an id: "-2147483648" with room for leading zeros.
constexpr std::size_t kLongestEntry = 64;

// The refusal of `token`, entry `entry` (1-based) of `source`: the whole value (printable,
// so that a binary file read as text gives a readable message), or, past kLongestEntry
// characters, its start, its length and the bound. `whole`: the token is complete (else it
// was cut where the reader stopped, and its length is "at least").
InputError bad_id(std::string_view token, std::string_view source, std::int64_t entry, bool whole) {
  std::string shown;
  for (const char c : token.substr(0, token.size() > kLongestEntry ? 24 : token.size()))
    shown += (c >= 32 && c < 127) ? c : '?';
  if (token.size() <= kLongestEntry) {
    return InputError(fmt::format("{}: entry {} '{}' is not a token id (an int32 integer)", source,
                                  entry, shown));
  }
  return InputError(fmt::format(
      "{}: entry {} '{}...' is {}{} characters long, more than the {} a token id may have", source,
      entry, shown, whole ? "" : "at least ", token.size(), kLongestEntry));
}

// The id written as `token` (an integer by the rule of core/numbers.hpp), entry
// `entry` (1-based) of `source`.
std::int32_t parse_id(std::string_view token, std::string_view source, std::int64_t entry) {
  const std::optional<std::int32_t> value =
      token.size() > kLongestEntry ? std::nullopt : to_integer<std::int32_t>(token);
  if (!value) throw bad_id(token, source, entry, true);
  return *value;
}

// [offset, offset + length) of `count` ids, all of which are known; length < 0: to the end.
void check_window(std::string_view path, std::int64_t count, std::int64_t offset,
                  std::int64_t length) {
  if (offset < 0 || offset >= count) {
    throw InputError(fmt::format("--offset {} is outside the {} ids of '{}': it must be in [0, {})",
                                 offset, count, path, count));
  }
  if (length > count - offset) {
    throw InputError(fmt::format("--length {} from --offset {} runs past the {} ids of '{}'",
                                 length, offset, count, path));
  }
}

// Without --length, more than max_length ids from the offset: no sequence can hold them.
InputError too_many(std::string_view path, std::string_view count, std::int64_t offset,
                    std::int64_t max_length) {
  return InputError(
      fmt::format("ids file '{}' holds {} ids from --offset {}, more than the {} a sequence may "
                  "have: choose the window with --length (and --offset)",
                  path, count, offset, max_length));
}

}  // namespace

std::vector<std::int32_t> parse_ids(std::string_view text, std::string_view source) {
  std::vector<std::int32_t> ids;
  for_each_token(text, true, [&](std::string_view token) {
    ids.push_back(parse_id(token, source, static_cast<std::int64_t>(ids.size()) + 1));
    return true;
  });
  return ids;
}

IdsFormat guess_format(std::string_view path) {
  return path.ends_with(".bin") ? IdsFormat::uint16 : IdsFormat::text;
}

std::vector<std::int32_t> read_text_window(std::istream& in, std::string_view source,
                                           std::int64_t offset, std::int64_t length,
                                           std::int64_t max_length, std::size_t chunk_bytes) {
  // Ids are taken until the window is full: length of them, or max_length + 1 (one
  // more than may be used, to know that there are more) when length < 0.
  const std::int64_t wanted = length >= 0 ? length : max_length + 1;
  std::vector<std::int32_t> ids;
  std::int64_t seen = 0;  // entries read so far, before the window too (each one checked)
  std::string text;       // the bytes not yet split into entries
  std::vector<char> chunk(std::max<std::size_t>(chunk_bytes, 1));
  bool full = false, end_of_file = false, any_byte = false;
  while (!full && !end_of_file) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    end_of_file = static_cast<std::size_t>(in.gcount()) < chunk.size();
    if (in.bad()) throw InputError(fmt::format("cannot read ids file '{}'", source));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    any_byte = any_byte || in.gcount() > 0;
    const std::size_t used = for_each_token(text, end_of_file, [&](std::string_view token) {
      const std::int32_t id = parse_id(token, source, ++seen);
      if (seen > offset && static_cast<std::int64_t>(ids.size()) < wanted) ids.push_back(id);
      full = seen > offset && static_cast<std::int64_t>(ids.size()) == wanted;
      return !full;
    });
    text.erase(0, used);
    if (!full && text.size() > kLongestEntry)
      throw bad_id(text, source, seen + 1, false);  // no id is this long
  }
  if (seen == 0) {
    throw InputError(
        fmt::format("ids file '{}' {}", source, any_byte ? "holds no ids" : "is empty"));
  }
  if (!full) check_window(source, seen, offset, length);  // every id was read: the count is known
  if (length < 0 && static_cast<std::int64_t>(ids.size()) > max_length) {
    throw too_many(source, fmt::format("more than {}", max_length), offset, max_length);
  }
  return ids;
}

std::vector<std::int32_t> read_ids_file(const std::string& path, IdsFormat format,
                                        std::int64_t offset, std::int64_t length,
                                        std::int64_t max_length) {
  check_input_file(path, "ids file");  // a regular file: never a FIFO or /dev/zero
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open ids file '{}'", path));
  // A text file is read until its window is full, whatever size it reports.
  if (format == IdsFormat::text) return read_text_window(in, path, offset, length, max_length);
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size == 0) {
    const bool empty = in.peek() == std::ifstream::traits_type::eof();
    throw InputError(
        empty ? fmt::format("ids file '{}' is empty", path)
              : fmt::format("ids file '{}' reports a size of 0 bytes but is not empty (a /proc "
                            "or /sys file?): raw uint16 ids are windowed by the file's size",
                            path));
  }

  // uint16: the count is the size; only the window's bytes are read.
  if (size % 2 != 0) {
    throw InputError(fmt::format(
        "ids file '{}' is truncated: {} bytes is not a whole number of uint16 ids", path, size));
  }
  const auto count = static_cast<std::int64_t>(size / 2);
  check_window(path, count, offset, length);
  if (length < 0 && count - offset > max_length)
    throw too_many(path, fmt::format("{}", count - offset), offset, max_length);
  const std::int64_t n = length >= 0 ? length : count - offset;
  std::string bytes(static_cast<std::size_t>(2 * n), '\0');
  in.seekg(static_cast<std::streamoff>(2 * offset));
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw InputError(fmt::format("cannot read ids file '{}'", path));
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < ids.size(); ++i) {  // little-endian, whatever the host
    ids[i] = static_cast<unsigned char>(bytes[2 * i]) | static_cast<unsigned char>(bytes[2 * i + 1])
                                                            << 8;
  }
  return ids;
}

std::vector<std::int32_t> byte_ids(std::string_view text) {
  std::vector<std::int32_t> ids;
  for (const char c : text) ids.push_back(static_cast<unsigned char>(c));
  return ids;
}

}  // namespace andrea::cli
