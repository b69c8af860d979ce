#include "apps/ids_input.hpp"

#include <charconv>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "core/errors.hpp"

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
      std::string shown;  // printable, so a binary file read as text gives a readable message
      for (const char c : token.substr(0, 24)) shown += (c >= 32 && c < 127) ? c : '?';
      throw InputError(fmt::format("{}: entry {} '{}' is not a token id (an int32 integer)",
                                   source, ids.size() + 1, shown));
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

// Opens a regular file; returns its size in bytes.
std::uintmax_t open_ids_file(const std::string& path, std::ifstream& in) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(fmt::format("cannot open ids file '{}': {}", path,
                                 std::filesystem::exists(path, ec) ? "not a regular file"
                                                                   : "no such file"));
  }
  in.open(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open ids file '{}'", path));
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size == 0) throw InputError(fmt::format("ids file '{}' is empty", path));
  return size;
}

std::string read_bytes(std::ifstream& in, const std::string& path, std::uintmax_t offset,
                       std::uintmax_t count) {
  std::string bytes(count, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), static_cast<std::streamsize>(count));
  if (!in) throw InputError(fmt::format("cannot read ids file '{}'", path));
  return bytes;
}

std::vector<std::int32_t> uint16_ids(const std::string& bytes) {
  std::vector<std::int32_t> ids(bytes.size() / 2);
  for (std::size_t i = 0; i < ids.size(); ++i) {  // little-endian, whatever the host
    ids[i] = static_cast<unsigned char>(bytes[2 * i]) |
             static_cast<unsigned char>(bytes[2 * i + 1]) << 8;
  }
  return ids;
}

// [offset, offset + length) of `count` ids; length < 0: to the end.
void check_window(const std::string& path, std::int64_t count, std::int64_t offset,
                  std::int64_t& length) {
  if (offset < 0 || offset >= count) {
    throw InputError(fmt::format("--offset {} is outside the {} ids of '{}': it must be in [0, {})",
                                 offset, count, path, count));
  }
  if (length < 0) length = count - offset;
  if (length > count - offset) {
    throw InputError(fmt::format("--length {} from --offset {} runs past the {} ids of '{}'",
                                 length, offset, count, path));
  }
}

}  // namespace

std::vector<std::int32_t> read_ids_file(const std::string& path, IdsFormat format,
                                        std::int64_t offset, std::int64_t length) {
  std::ifstream in;
  const std::uintmax_t size = open_ids_file(path, in);
  if (format == IdsFormat::uint16) {  // read only the window: train.bin may hold billions of ids
    if (size % 2 != 0) {
      throw InputError(fmt::format(
          "ids file '{}' is truncated: {} bytes is not a whole number of uint16 ids", path, size));
    }
    check_window(path, static_cast<std::int64_t>(size / 2), offset, length);
    return uint16_ids(read_bytes(in, path, 2 * static_cast<std::uintmax_t>(offset),
                                 2 * static_cast<std::uintmax_t>(length)));
  }
  const std::vector<std::int32_t> ids = parse_ids(read_bytes(in, path, 0, size), path);
  if (ids.empty()) throw InputError(fmt::format("ids file '{}' holds no ids", path));
  check_window(path, static_cast<std::int64_t>(ids.size()), offset, length);
  return {ids.begin() + offset, ids.begin() + offset + length};
}

std::vector<std::int32_t> byte_ids(std::string_view text) {
  std::vector<std::int32_t> ids;
  for (const char c : text) ids.push_back(static_cast<unsigned char>(c));
  return ids;
}

}  // namespace andrea::cli
