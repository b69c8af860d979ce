#include "apps/standard_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/errors.hpp"

namespace andrea::cli {

namespace {

// The refusal of a write to standard output that failed with `error` (an errno).
OutputError stdout_error(int error) {
  return OutputError(fmt::format("cannot write standard output: {}", std::strerror(error)));
}

}  // namespace

void reserve_standard_streams() {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;  // open: nothing to do
    const int opened = ::open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
    if (opened >= 0 && opened != fd) {  // the lowest free number is fd: never, in practice
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
}

void write_stdout(std::string_view bytes) {
  if (bytes.empty()) return;
  errno = 0;
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) {
    throw stdout_error(errno != 0 ? errno : EIO);
  }
}

void flush_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw stdout_error(errno != 0 ? errno : EIO);
}

void close_stdout() {
  flush_stdout();
  errno = 0;
  if (std::fclose(stdout) != 0) throw stdout_error(errno != 0 ? errno : EIO);
}

}  // namespace andrea::cli
