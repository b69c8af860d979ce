// The trusted side of a remote call: the test program (which links no student code) sends
// each call of a piece to the piece runner, a program of its own built from the student's files
// (grader/remote/runner.cpp), and turns the answer back into what the piece would have done in
// place: the value it returned, the exception it threw, what it wrote into its outputs.
//
// The runner is started at the first call, from the program named by the environment variable
// ANDREA_RUNNER (through ANDREA_RUNNER_LAUNCHER, the sandbox, when set), with an environment of
// its own: no hidden seed, no grader's settings. A runner that dies, hangs past
// ANDREA_RUNNER_TIMEOUT seconds (30), or answers what does not parse fails the call with a
// RunnerError that says so, and a new runner serves the next call. Nothing the runner prints is
// read: its output is kept (the last 4 KiB) to be quoted in that message.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "grader/remote/args.hpp"
#include "grader/remote/wire.hpp"

namespace andrea::remote {

/// The runner failed a call: it ended, was killed, did not answer in time, or answered garbage.
class RunnerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failed launch whose error was caught and dropped by the code that made it, or the error
/// of a CUDA call the piece threw: the CPU layer's text (a memcheck or racecheck report).
class KernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Sends one request to the runner and returns its answer (the bytes after the length).
/// Throws RunnerError when it cannot be had.
std::string exchange(std::string_view piece, const std::string& request);

/// What a CUDA piece must have done. not_required: the C++ pieces. required: launched a kernel
/// (lesson 9's step on tables the runner holds). do_the_work: that, and a call that computed
/// something is run a second time with its launches skipped (cudasim::set_launches_skipped): an
/// answer the same without its kernels was computed on the host.
enum class Kernels { not_required, required, do_the_work };

/// The CPU layer's thread order and worker threads of this program, which the runner sets
/// before each call (cudasim::set_thread_order, set_worker_threads in the tests). Defined by
/// the program's backend: grader/remote/settings_*.cpp.
CallSettings settings();

/// The counts of the CPU layer's profile tool for the calls made while profile_calls(true):
/// the runner runs each such call with the tool on and sends its launches' counts back.
/// `counted` is false when the runner's kernels carry no instrumentation (tools_available()).
struct ProfiledCalls {
  bool counted = false;
  std::vector<cudasim::LaunchProfile> launches;
};
/// Turns the profiling of the next calls on (the list is emptied) or off.
void profile_calls(bool on);
/// Whether the calls are profiled now: settings() sends it with each call.
bool profiling_calls();
/// What the calls made since profile_calls(true) launched.
ProfiledCalls& profiled_calls();

/// How a call ended, turned into what the piece would have done here: throws the exception it
/// threw (InputError, or a std::runtime_error that names the type), a KernelError for a launch
/// that failed, or the "no kernel" failure of a CUDA piece that computed on the host.
void rethrow(std::string_view piece, const AnswerHead& head, Kernels kernels, bool wrote);

/// Whether a call computed something worth a kernel: a result with a byte that is not 0, or an
/// argument byte it changed to one that is not 0 (a cudaMemset of zeros is no kernel's work).
/// before, after: the bytes of its outputs (outputs() below) before and after the call.
bool computed(const std::string& result, const std::string& before, const std::string& after);

/// Throws KernelError when `second`, the answer of the call run again with its launches
/// skipped, is the same as the first's: `first` is the first answer past its head (the result
/// and the outputs, as the runner wrote them).
void check_kernels_did_the_work(std::string_view piece, std::uint64_t launches,
                                std::string_view first, const std::string& second);

/// The bytes of a call's outputs as they are now: compared before and after the call.
template <class... P>
std::string outputs(P... args) {
  Writer w;
  w.reserve((std::size_t{64} + ... + (is_output<P> ? element_bytes(args) : 0)));
  ((is_output<P> ? Arg<P>::send(w, args) : void()), ...);
  return w.data();
}

template <class R, class... P>
R call(std::string_view piece, Kernels kernels, P... args) {
  const CallSettings s = settings();
  Writer w;
  w.reserve((std::size_t{4096} + ... + element_bytes(args)));  // one allocation, no doubling
  w.number(kRequestMark);
  w.text(piece);
  w.number(s.order), w.number(s.seed), w.number(s.workers), w.number(s.profile);
  const std::size_t skip_at = w.data().size();  // CallSettings::skip_launches, 0 on this run
  w.number(std::uint8_t{0});
  (Arg<P>::send(w, args), ...);
  const std::string answer = remote::exchange(piece, w.data());
  // A call that wrote nothing and returned nothing may well launch nothing (no rows to zero).
  const std::string before =
      kernels != Kernels::not_required ? outputs<P...>(args...) : std::string();
  try {
    Reader r(answer);
    AnswerHead head;
    take(r, head);
    const std::string_view returned = std::string_view(answer).substr(answer.size() - r.left());
    if (head.outcome == Outcome::not_served) throw RunnerError(head.message);
    if (s.profile != 0) {
      ProfiledCalls& profiled = profiled_calls();
      profiled.counted = head.profiled;
      profiled.launches.insert(profiled.launches.end(), head.profiles.begin(), head.profiles.end());
    }
    std::conditional_t<std::is_void_v<R>, char, R> result{};
    if constexpr (!std::is_void_v<R>) {
      if (head.outcome == Outcome::returned) take(r, result);
    }
    (Arg<P>::receive(r, args), ...);
    if (!r.done()) throw WireError("bytes after the end of the answer");
    const std::string after =
        kernels != Kernels::not_required ? outputs<P...>(args...) : std::string();
    rethrow(piece, head, kernels, !std::is_void_v<R> || after != before);
    std::string result_bytes;
    if constexpr (!std::is_void_v<R>) {
      Writer bytes;
      put(bytes, result);
      result_bytes = bytes.data();
    }
    if (kernels == Kernels::do_the_work && head.outcome == Outcome::returned && head.launches > 0 &&
        head.launches != kNotCounted && computed(result_bytes, before, after)) {
      std::string again = w.data();  // the arguments as they were before the call
      again[skip_at] = 1;
      check_kernels_did_the_work(piece, head.launches, returned, remote::exchange(piece, again));
    }
    if constexpr (!std::is_void_v<R>) return result;
  } catch (const WireError& e) {
    throw RunnerError("the piece runner's answer to " + std::string(piece) +
                      "() is not an answer (" + e.what() + "): the call fails");
  }
}

/// A piece as the test bodies call it, backend::lookup(wte, ids, out): an object whose call
/// operator has the parameters of the piece's own declaration (Sig, from its header), so that
/// a test compiles against the remote backend exactly as against the others.
template <std::size_t N>
struct Name {
  constexpr Name(const char (&s)[N]) { std::copy_n(s, N, text); }
  char text[N];
};
template <Name name, Kernels kernels, class Sig>
struct Piece;
template <Name name, Kernels kernels, class R, class... P>
struct Piece<name, kernels, R(P...)> {
  R operator()(P... args) const { return call<R, P...>(name.text, kernels, args...); }
};

}  // namespace andrea::remote
