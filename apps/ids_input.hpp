// Where the CLI's token ids come from: a list on the command line, a text or
// raw uint16 file (nanoGPT's train.bin), or UTF-8 text read as byte ids.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace andrea::cli {

/// "1, 2,3" -> {1, 2, 3}: integers separated by commas and/or whitespace.
/// Throws andrea::InputError naming the bad token and its position (1-based)
/// when an entry is not an integer or does not fit int32. `source` names the
/// input in messages ("--ids", a file path).
std::vector<std::int32_t> parse_ids(std::string_view text, std::string_view source);

/// A window [offset, offset + length) of the ids in a file, read without reading
/// more than the window needs (nanoGPT's train.bin holds billions of ids):
///   text:   integers separated by commas/whitespace (parse_ids), read in chunks up to
///           the window's end (every entry before it is checked too);
///   uint16: raw little-endian uint16, as nanoGPT's prepare.py writes train.bin: only
///           the window's bytes are read.
/// length < 0 means "to the end", which may hold at most max_length ids (the context
/// length T: no sequence is longer). Throws andrea::InputError when the file cannot be
/// read, a uint16 file has an odd number of bytes, an entry is not an id, the window
/// falls outside the file, or, without a length, more than max_length ids follow offset.
enum class IdsFormat { text, uint16 };
std::vector<std::int32_t> read_ids_file(const std::string& path, IdsFormat format,
                                        std::int64_t offset, std::int64_t length,
                                        std::int64_t max_length);

/// read_ids_file's text reader on a stream, `chunk_bytes` at a time (a test or a fuzzer
/// sets it small, so that entries are cut between chunks). `source` names it in messages.
std::vector<std::int32_t> read_text_window(std::istream& in, std::string_view source,
                                           std::int64_t offset, std::int64_t length,
                                           std::int64_t max_length,
                                           std::size_t chunk_bytes = 1 << 16);

/// The format of an ids file from its name: ".bin" -> uint16, anything else -> text.
IdsFormat guess_format(std::string_view path);

/// UTF-8 text as byte ids 0..255, the byte tokens of a byte-level vocabulary
/// (GPT-2's BPE starts from these 256 bytes). "é" -> {195, 169}.
std::vector<std::int32_t> byte_ids(std::string_view text);

}  // namespace andrea::cli
