// The trusted side's runner process: started on the first call, spoken to through two pipes
// (its fds 3 and 4), its output kept apart, replaced after it fails a call. client.hpp says why.
#include "grader/remote/client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
#include <vector>

extern char** environ;
// This program's runner in the build that made it: a file of one line per program
// (grader/remote/remote.cmake).
extern const char* const andrea_remote_default_runner;

namespace andrea::remote {
namespace {

constexpr std::size_t kKeptOutput = 4096;  // the runner's last bytes of output, for messages

/// What the runner may know of this program's environment: where programs are, the
/// sandbox's limits, the CPU layer's tools and order, the sanitizers' options. Not the hidden
/// seed, not the runner's own settings, not the grader's.
bool passed_on(std::string_view entry) {
  static constexpr std::string_view kept[] = {
      "PATH=",          "LANG=",          "LC_ALL=",        "TMPDIR=",
      "HOME=",          "CUDASIM_TOOLS=", "CUDASIM_ORDER=", "ASAN_OPTIONS=",
      "UBSAN_OPTIONS=", "LSAN_OPTIONS=",  "ANDREA_SANDBOX"};
  for (std::string_view k : kept)
    if (entry.starts_with(k)) return true;
  return false;
}

/// From the head of an AddressSanitizer report (its "ERROR: AddressSanitizer: ..." line and the
/// stack below it), what a student needs: the error, the access and the first frame in their
/// lesson's files: "AddressSanitizer: heap-buffer-overflow (READ of size 4) at
/// lessons/01_lookup/lookup.cpp:19". "" when the report names no line of lessons/.
std::string sanitizer_summary(const std::string& report) {
  std::istringstream lines(report);
  std::string line, error, access, where;
  while (std::getline(lines, line) && where.empty()) {
    if (const std::size_t at = line.find("ERROR: AddressSanitizer: "); at != std::string::npos) {
      error = line.substr(at + 25);
      error.resize(std::min(error.find(' '), error.size()));
    } else if (access.empty() && (line.starts_with("READ of size ") ||
                                  line.starts_with("WRITE of size "))) {
      access = line.substr(0, line.find(" at "));
    } else if (const std::size_t at = line.rfind("/lessons/");
               at != std::string::npos && line.find(" in ") != std::string::npos) {
      where = line.substr(at + 1);  // lessons/NN_topic/file:LINE[:COLUMN]
      const std::size_t first = where.find(':');
      const std::size_t second = where.find(':', first + 1);
      if (second != std::string::npos) where.resize(second);
    }
  }
  if (error.empty() || where.empty()) return {};
  return "AddressSanitizer: " + error + (access.empty() ? "" : " (" + access + ")") + " at " + where;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}

class Process {
 public:
  ~Process() { stop(); }

  /// Sends the request, waits for the answer. Throws RunnerError.
  std::string exchange(std::string_view piece, const std::string& request) {
    if (pid_ <= 0) start();
    // The request's length, then the request: written from where they lie (no copy of a
    // request that may hold a 26 MB table).
    const std::uint64_t length = request.size();
    const std::string_view parts[2] = {{reinterpret_cast<const char*>(&length), 8}, request};
    const std::size_t total = 8 + request.size();
    std::size_t sent = 0;
    std::string answer;
    std::uint64_t expected = 0;
    const auto deadline = std::chrono::steady_clock::now() + timeout();
    for (;;) {
      if (sent == total && answer.size() >= 8) {
        std::memcpy(&expected, answer.data(), 8);
        if (expected > kMaxMessage)
          fail(piece, "announced an answer of " + std::to_string(expected) + " bytes");
        if (answer.size() - 8 >= expected) break;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        fail(piece,
             "did not answer within " + std::to_string(timeout().count()) + " s, and was stopped");
      }
      pollfd fds[3] = {
          {answers_, POLLIN, 0}, {output_, POLLIN, 0}, {sent < total ? requests_ : -1, POLLOUT, 0}};
      if (::poll(fds, 3, static_cast<int>(std::min<long long>(left.count(), 1000))) < 0 &&
          errno != EINTR) {
        fail(piece, std::string("could not be waited for: ") + std::strerror(errno));
      }
      if (fds[1].revents != 0) drain_output();
      if (fds[2].revents & (POLLERR | POLLHUP)) fail(piece, ended());
      if (fds[2].revents & POLLOUT) {
        const std::string_view part = sent < 8 ? parts[0].substr(sent) : parts[1].substr(sent - 8);
        const ssize_t n = ::write(requests_, part.data(), part.size());
        if (n < 0 && errno != EAGAIN && errno != EINTR) fail(piece, ended());
        if (n > 0) sent += static_cast<std::size_t>(n);
      }
      if (fds[0].revents != 0) {
        char buffer[1 << 16];
        const ssize_t n = ::read(answers_, buffer, sizeof buffer);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) fail(piece, ended());
        if (n > 0) {
          answer.append(buffer, static_cast<std::size_t>(n));
          if (answer.size() > kMaxMessage + 8) fail(piece, "answered more than it may");
        }
      }
    }
    if (answer.size() - 8 != expected) fail(piece, "answered more than it was asked");
    return answer.substr(8);
  }

 private:
  static std::chrono::seconds timeout() {
    const char* text = std::getenv("ANDREA_RUNNER_TIMEOUT");
    const long seconds = text != nullptr ? std::strtol(text, nullptr, 10) : 0;
    return std::chrono::seconds(seconds > 0 ? seconds : 30);
  }

  void start() {
    const char* runner = std::getenv("ANDREA_RUNNER");
    if (runner == nullptr || *runner == '\0') runner = andrea_remote_default_runner;
    std::vector<std::string> words;
    if (const char* launcher = std::getenv("ANDREA_RUNNER_LAUNCHER");
        launcher != nullptr && *launcher) {
      std::istringstream split(launcher);
      for (std::string w; split >> w;) words.push_back(w);
    }
    words.emplace_back(runner);
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    std::vector<char*> env;
    for (char** e = environ; *e != nullptr; ++e)
      if (passed_on(*e)) env.push_back(*e);
    env.push_back(nullptr);

    ::signal(SIGPIPE, SIG_IGN);  // a runner that died fails the call, not this program
    int to[2], from[2], out[2];
    if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0 ||
        ::pipe2(out, O_CLOEXEC) != 0) {
      throw RunnerError(std::string("cannot make the runner's pipes: ") + std::strerror(errno));
    }
    // ANDREA_RUNNER_OUTPUT=show (lessons/grade.py --profile): the runner prints here.
    const char* output = std::getenv("ANDREA_RUNNER_OUTPUT");
    const bool show_output = output != nullptr && std::string_view(output) == "show";
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw RunnerError(std::string("cannot start the runner: ") + std::strerror(errno));
    if (pid == 0) {  // the child: fds 3 (requests), 4 (answers), 1 and 2 (its output), then exec
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      const int in = ::fcntl(to[0], F_DUPFD, 10), answer = ::fcntl(from[1], F_DUPFD, 10);
      ::dup2(in, 3), ::dup2(answer, 4);
      if (!show_output) ::dup2(out[1], 1), ::dup2(out[1], 2);
      const int devnull = ::open("/dev/null", O_RDONLY);
      ::dup2(devnull, 0);
      ::close_range(5, ~0U, 0);
      ::execve(argv[0], argv.data(), env.data());
      std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
      ::_exit(127);
    }
    ::close(to[0]), ::close(from[1]), ::close(out[1]);
    if (output_ >= 0) ::close(output_);
    pid_ = pid, requests_ = to[1], answers_ = from[0], output_ = out[0];
    ::fcntl(requests_, F_SETFL, O_NONBLOCK);
    output_kept_.clear();
    sanitizer_report_.clear();
  }

  void drain_output() {
    char buffer[4096];
    const ssize_t n = ::read(output_, buffer, sizeof buffer);
    if (n <= 0) return;
    output_kept_.append(buffer, static_cast<std::size_t>(n));
    // An AddressSanitizer report's head names the line; its tail, all the last bytes hold of a
    // deep stack of long names, does not: kept apart from where it starts.
    if (sanitizer_report_.empty()) {
      const std::size_t from = output_kept_.size() - std::min<std::size_t>(
                                   output_kept_.size(), static_cast<std::size_t>(n) + 64);
      const std::size_t at = output_kept_.find("ERROR: AddressSanitizer", from);
      if (at != std::string::npos) sanitizer_report_ = output_kept_.substr(at);
    } else if (sanitizer_report_.size() < 2 * kKeptOutput) {
      sanitizer_report_.append(buffer, static_cast<std::size_t>(n));
    }
    if (output_kept_.size() > 2 * kKeptOutput)
      output_kept_.erase(0, output_kept_.size() - kKeptOutput);
  }

  /// How the runner ended (it closed its pipes): waits for it.
  std::string ended() {
    ::close(requests_), ::close(answers_);
    requests_ = answers_ = -1;
    int status = 0;
    // Its pipes closed: it is ending. Give it a moment, then make sure.
    for (int i = 0; i < 50 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) ::usleep(10000);
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    if (WIFSIGNALED(status)) return "was killed by " + signal_name(WTERMSIG(status));
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code > 128 && code < 128 + 65)
      return "was killed by " + signal_name(code - 128);  // the sandbox's way
    return "ended (exit status " + std::to_string(code) + ")";
  }

  [[noreturn]] void fail(std::string_view piece, const std::string& what) {
    std::string how = what;
#if !defined(__SANITIZE_ADDRESS__)
    // A crash says nothing of where it happened; AddressSanitizer names the line.
    if (how.ends_with("SIGSEGV") || how.ends_with("SIGBUS")) {
      how += " (a memory error: the sanitize preset names its line, docs/grading.md)";
    }
#endif
    if (pid_ > 0) stop();
    for (int i = 0; i < 20 && output_ >= 0; ++i) drain_output();
    if (output_ >= 0) ::close(output_), output_ = -1;
    std::string said = output_kept_.size() > kKeptOutput
                           ? output_kept_.substr(output_kept_.size() - kKeptOutput)
                           : output_kept_;
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    if (const std::string summary = sanitizer_summary(sanitizer_report_); !summary.empty()) {
      said = summary;
    } else if (!said.empty()) {
      said = "its last output: " + said;
    }
    // A hidden test's program (the only one the grader gives the seed) never quotes the runner:
    // what the student's code printed could be the hidden inputs, for the report to show.
    if (std::getenv("ANDREA_HIDDEN_SEED") != nullptr) said.clear();
    throw RunnerError("the piece runner (your code) " + how + " during " + std::string(piece) +
                      "(): the call fails" + (said.empty() ? "" : "; " + said));
  }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    for (int* fd : {&requests_, &answers_})
      if (*fd >= 0) ::close(*fd), *fd = -1;
  }

  pid_t pid_ = -1;
  int requests_ = -1, answers_ = -1, output_ = -1;
  std::string output_kept_;
  std::string sanitizer_report_;  // from "ERROR: AddressSanitizer" on, at most 8 KiB
};

}  // namespace

ProfiledCalls& profiled_calls() {
  static ProfiledCalls calls;
  return calls;
}

namespace {
bool g_profiling = false;
}

void profile_calls(bool on) {
  g_profiling = on;
  profiled_calls() = {};
}

bool profiling_calls() { return g_profiling; }

std::string exchange(std::string_view piece, const std::string& request) {
  static Process runner;
  return runner.exchange(piece, request);
}

bool computed(const std::string& result, const std::string& before, const std::string& after) {
  if (std::any_of(result.begin(), result.end(), [](char c) { return c != 0; })) return true;
  if (before.size() != after.size()) return true;
  for (std::size_t i = 0; i < after.size(); ++i)
    if (after[i] != before[i] && after[i] != 0) return true;
  return false;
}

void check_kernels_did_the_work(std::string_view piece, std::uint64_t launches,
                                std::string_view first, const std::string& second) {
  Reader r(second);
  AnswerHead head;
  take(r, head);
  if (head.outcome != Outcome::returned) return;  // it needed its kernels
  if (std::string_view(second).substr(second.size() - r.left()) != first) return;
  throw KernelError("the CUDA step computed " + std::string(piece) +
                    "() on the host: run again with its " + std::to_string(launches) +
                    (launches == 1 ? " kernel launch" : " kernel launches") +
                    " skipped (no block run), it gave the same answer; its work must be done "
                    "by a kernel");
}

void rethrow(std::string_view piece, const AnswerHead& head, Kernels kernels, bool wrote) {
  if (!head.failures.empty()) {  // the CPU layer's report, even where the piece dropped it
    throw KernelError(head.failures.front());
  }
  switch (head.outcome) {
    case Outcome::returned:
      if (kernels != Kernels::not_required && head.launches == 0 && wrote) {
        throw KernelError("no kernel was launched: the CUDA step computed " + std::string(piece) +
                          "() on the host; its work must be done by a kernel");
      }
      return;
    case Outcome::input_error:
      throw InputError(head.message);
    case Outcome::not_implemented:
      throw std::logic_error(head.message);
    case Outcome::cuda_error:
      throw KernelError(head.message);
    case Outcome::other_exception:
      throw std::runtime_error(head.type + ": " + head.message);
    case Outcome::unknown_exception:
      throw std::runtime_error("an exception that is not a std::exception");
    case Outcome::not_served:
      throw RunnerError(head.message);
  }
}

}  // namespace andrea::remote
