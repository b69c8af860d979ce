// The files the programs read, opened by one rule: a regular file only (a folder, a FIFO
// that may never be written, a device such as /dev/zero that never ends: refused before
// a byte is read), and a file read whole holds at most a documented number of bytes.
// A refusal names the real cause: "no such file", "Too many levels of symbolic links",
// "Permission denied", "a folder, not a regular file".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace andrea {

/// The most bytes of a text file read whole: a corpus, a vocabulary, a pair list (256 MiB).
inline constexpr std::uint64_t max_text_file_bytes = 256ull << 20;

/// Throws andrea::InputError "cannot open `what` 'path': `reason`" unless `path` opens
/// for reading as a regular file (never waiting on a FIFO).
void check_input_file(const std::string& path, std::string_view what);

/// Every byte of the regular file `path` (check_input_file), or andrea::InputError
/// "`what` 'path' is larger than N bytes" past max_bytes (read, not trusted from the
/// size a /proc file reports).
std::string read_input_file(const std::string& path, std::string_view what,
                            std::uint64_t max_bytes = max_text_file_bytes);

/// Every byte of standard input, read to its end with the same bound as a file (a pipe or
/// /dev/zero may never end). Throws andrea::InputError "cannot read standard input: <reason>"
/// when a read fails (closed: "Bad file descriptor"; a folder: "Is a directory"), or
/// "standard input is larger than N bytes" past max_bytes.
std::string read_standard_input(std::uint64_t max_bytes = max_text_file_bytes);

}  // namespace andrea
