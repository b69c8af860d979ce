#include "apps/ids_input.hpp"

#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <limits>

#include "reference/errors.hpp"

namespace andrea::cli {

std::vector<std::int32_t> parse_ids(std::string_view text, std::string_view source) {
  std::vector<std::int32_t> ids;
  const auto is_separator = [](char c) {
    return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (is_separator(text[pos])) {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < text.size() && !is_separator(text[end])) ++end;
    const std::string_view token = text.substr(pos, end - pos);
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || ptr != token.data() + token.size() ||
        value < std::numeric_limits<std::int32_t>::min() ||
        value > std::numeric_limits<std::int32_t>::max()) {
      throw InputError(fmt::format("{}: entry {} '{}' is not a token id (an int32 integer)",
                                   source, ids.size() + 1, token));
    }
    ids.push_back(static_cast<std::int32_t>(value));
    pos = end;
  }
  return ids;
}

IdsFormat guess_format(std::string_view path) {
  return path.ends_with(".bin") ? IdsFormat::uint16 : IdsFormat::text;
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open ids file '{}'", path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(fmt::format("cannot read ids file '{}'", path));
  return bytes;
}

std::vector<std::int32_t> uint16_ids(const std::string& bytes, const std::string& path) {
  if (bytes.size() % 2 != 0) {
    throw InputError(fmt::format(
        "ids file '{}' is truncated: {} bytes is not a whole number of uint16 ids", path,
        bytes.size()));
  }
  std::vector<std::int32_t> ids(bytes.size() / 2);
  for (std::size_t i = 0; i < ids.size(); ++i) {  // little-endian, whatever the host
    ids[i] = static_cast<unsigned char>(bytes[2 * i]) |
             static_cast<unsigned char>(bytes[2 * i + 1]) << 8;
  }
  return ids;
}

}  // namespace

std::vector<std::int32_t> read_ids_file(const std::string& path, IdsFormat format,
                                        std::int64_t offset, std::int64_t length) {
  const std::string bytes = read_file(path);
  std::vector<std::int32_t> ids =
      format == IdsFormat::uint16 ? uint16_ids(bytes, path) : parse_ids(bytes, path);
  const auto count = static_cast<std::int64_t>(ids.size());
  if (offset < 0 || offset >= count) {
    throw InputError(fmt::format("--offset {} is outside the {} ids of '{}': it must be in [0, {})",
                                 offset, count, path, count));
  }
  if (length < 0) length = count - offset;
  if (length > count - offset) {
    throw InputError(fmt::format("--length {} from --offset {} runs past the {} ids of '{}'",
                                 length, offset, count, path));
  }
  return {ids.begin() + offset, ids.begin() + offset + length};
}

std::vector<std::int32_t> byte_ids(std::string_view text) {
  std::vector<std::int32_t> ids;
  for (const char c : text) ids.push_back(static_cast<unsigned char>(c));
  return ids;
}

}  // namespace andrea::cli
