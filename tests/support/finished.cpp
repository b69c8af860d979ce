// The supervising parent of every test program: see finished.hpp.
#include "finished.hpp"
#include "only_on.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr char kFinished[] = "finished ";  // then main()'s result, in decimal
int finished_fd = -1;                      // the child's end of the pipe

void say(const std::string& text) {
  std::fflush(stdout);
  const std::string line = "\n[andrea] " + text + "\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, line.data(), line.size());
}

/// What the child wrote before it ended: main()'s result, or -1 if main() never finished.
int read_result(int fd) {
  ::fcntl(fd, F_SETFL, O_NONBLOCK);  // the child has ended: take what is in the pipe, never wait
  char buffer[64] = {};
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  if (n <= 0 || std::strncmp(buffer, kFinished, sizeof kFinished - 1) != 0) return -1;
  return std::atoi(buffer + sizeof kFinished - 1);
}

[[noreturn]] void supervise(pid_t child, int fd) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {}
  const int result = read_result(fd);
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (result >= 0 && result == code) ::_exit(code);
    say("the test program ended (exit status " + std::to_string(code) +
        ") before the test finished — exit(" + std::to_string(code) +
        "), _exit or quick_exit "
        "called from the exercise?");
    ::_exit(1);
  }
  const int signal_number = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  const char* name = sigabbrev_np(signal_number);
  say("the test program was killed by signal " + std::to_string(signal_number) + " (SIG" +
      (name ? name : "?") + ") before the test finished — abort(), a crash, or kill() " +
      "called from the exercise?");
  // End the same way, so that ctest reports the crash as before (no core file).
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
  ::_exit(1);
}

// Priority 101: before every default-priority static initialiser, the exercise's included.
__attribute__((constructor(101))) void fork_supervisor() {
  if (std::getenv("ANDREA_TEST_UNSUPERVISED")) return;  // e.g. under a debugger
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (child > 0) {
    ::close(fds[1]);
    supervise(child, fds[0]);
  }
  ::close(fds[0]);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a time-out kills the parent: the child goes with it
  if (::getppid() != parent) ::_exit(1);
  finished_fd = fds[1];
}

}  // namespace

namespace andrea::testing {

int finished(int result) {
  if (result == 0 && !::testing::GTEST_FLAG(list_tests) &&
      ::testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    const std::string filter = ::testing::GTEST_FLAG(filter);
    std::string why = "no test ran: the --gtest_filter '" + filter +
                      "' matches no test of this program";
    if (const std::string left_out = left_out_on(this_backend());
        !left_out.empty() && filter.ends_with(left_out)) {
      why += " (it ends with " + left_out + ": the tests of another backend's step, which this "
             "program leaves out)";
    }
    say(why);
    result = 1;
  }
  if (finished_fd >= 0) {
    const std::string line = kFinished + std::to_string(result) + "\n";
    [[maybe_unused]] auto n = ::write(finished_fd, line.data(), line.size());
  }
  return result;
}

}  // namespace andrea::testing
