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

// The refusal of an input (a file: "the corpus 'c.txt'"; "standard input") larger than max_bytes.
InputError too_large(std::string_view name, std::uint64_t max_bytes) {
  return InputError(
      fmt::format("{} is larger than {} bytes, the most it may hold", name, max_bytes));
}

// Every byte `fd` gives until its end, or andrea::InputError naming the input (`name`) when a
// read fails ("cannot read standard input: Is a directory") or past max_bytes. Closes
// nothing.
std::string read_all(int fd, std::string_view name, std::uint64_t max_bytes) {
  std::string bytes;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("cannot read {}: {}", name, std::strerror(errno)));
    if (n == 0) return bytes;
    bytes.append(chunk, static_cast<std::size_t>(n));
    if (bytes.size() > max_bytes) throw too_large(name, max_bytes);
  }
}

// Closes fd when it goes out of scope.
struct Closer {
  int fd;
  ~Closer() { ::close(fd); }
};

}  // namespace

void check_input_file(const std::string& path, std::string_view what) {
  ::close(open_regular(path, what));
}

std::string read_input_file(const std::string& path, std::string_view what,
                            std::uint64_t max_bytes) {
  std::uint64_t size = 0;
  const Closer file{open_regular(path, what, &size)};
  const std::string name = fmt::format("{} '{}'", what, path);
  if (size > max_bytes) throw too_large(name, max_bytes);
  return read_all(file.fd, name, max_bytes);
}

std::string read_standard_input(std::uint64_t max_bytes) {
  return read_all(STDIN_FILENO, "standard input", max_bytes);
}

}  // namespace andrea
