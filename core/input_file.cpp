#include "core/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include "core/errors.hpp"

namespace andrea {

namespace {

// What a file that is not a regular file is, for the message.
const char* kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (a pipe)";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// A regular file opened for reading (O_NONBLOCK: a FIFO never blocks the open), or an
// error; *size is the size it reports (0 for a /proc file, whatever it holds).
int open_regular(const std::string& path, std::string_view what, std::uint64_t* size = nullptr) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    throw InputError(fmt::format("cannot open {} '{}': {}", what, path,
                                 error == ENOENT ? "no such file" : std::strerror(error)));
  }
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    throw InputError(fmt::format("cannot open {} '{}': it is {}, not a regular file", what, path,
                                 kind(status.st_mode)));
  }
  if (size != nullptr) *size = static_cast<std::uint64_t>(status.st_size);
  return fd;
}

// The refusal of a file larger than max_bytes.
InputError too_large(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
  return InputError(
      fmt::format("{} '{}' is larger than {} bytes, the most it may hold", what, path, max_bytes));
}

}  // namespace

void check_input_file(const std::string& path, std::string_view what) {
  ::close(open_regular(path, what));
}

std::string read_input_file(const std::string& path, std::string_view what,
                            std::uint64_t max_bytes) {
  std::uint64_t size = 0;
  const int fd = open_regular(path, what, &size);
  if (size > max_bytes) {
    ::close(fd);
    throw too_large(path, what, max_bytes);
  }
  std::string bytes;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw InputError(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(error)));
    }
    if (n == 0) break;
    bytes.append(chunk, static_cast<std::size_t>(n));
    if (bytes.size() > max_bytes) {
      ::close(fd);
      throw too_large(path, what, max_bytes);
    }
  }
  ::close(fd);
  return bytes;
}

}  // namespace andrea
