// Standard output as the programs write it: every write checked, and its close too (a full
// disk may say so only when the last buffer is flushed: `andrea-embed tokenize hi > /dev/full`
// must fail, not exit 0 with the output lost). One place, for every command of both programs.
#pragma once

#include <fmt/format.h>

#include <string_view>
#include <utility>

namespace andrea::cli {

/// Keeps a closed standard stream (`<&-`, `>&-`) closed in effect: /dev/null is opened on its
/// number the wrong way round (write-only on 0, read-only on 1 and 2), so that reading or
/// writing it fails with EBADF as on a closed stream, and no file the program opens later
/// takes its number (and the output meant for the terminal). Call it first in main.
void reserve_standard_streams();

/// Writes `bytes` to standard output. Throws andrea::OutputError "cannot write standard
/// output: <reason>" (strerror: "No space left on device", "Bad file descriptor") when the
/// stream does not take them all.
void write_stdout(std::string_view bytes);

/// fmt::print to standard output, checked as write_stdout().
template <class... Args>
void print(fmt::format_string<Args...> format, Args&&... args) {
  write_stdout(fmt::format(format, std::forward<Args>(args)...));
}

/// Flushes standard output (before a long step, so that what was printed shows). Throws
/// andrea::OutputError as write_stdout() when the flush fails.
void flush_stdout();

/// Flushes and closes standard output, last in main. Throws andrea::OutputError as
/// write_stdout() when a buffered write or the close fails.
void close_stdout();

}  // namespace andrea::cli
