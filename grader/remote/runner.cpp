// The piece runner: the student's pieces of one lesson (and of the lessons it needs) and a loop
// that serves the calls of the trusted test program, which starts it (client.hpp). It holds no
// test, no check, no golden file and no solution: what it answers is data, compared on the
// trusted side. Built per lesson and backend by remote.cmake; the file ANDREA_SERVES names the
// functions it serves, from lessons/lessons.json.
//
// Requests come on fd 3 and answers go out on fd 4, each as its length (8 bytes) and its bytes
// (wire.hpp). What the pieces print goes to fds 1 and 2, which the trusted side keeps apart.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "andrea_pieces/headers.inc"  // the pieces' headers (lessons/lessons.json)
#include "core/errors.hpp"
#include "grader/remote/confine.hpp"
#include "grader/remote/serve.hpp"
#include "tests/support/heap.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/device_tables.hpp"
#endif
#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
#include "cudasim/launch.hpp"
#include "cudasim/tools.hpp"
#endif

namespace andrea::remote {
namespace {

#if defined(ANDREA_BACKEND_CUDA)
namespace impl = ::andrea::cuda;
#else
namespace impl = ::andrea::reference;
#endif

using Handler = void (*)(Reader&, Writer&);

#if defined(ANDREA_SERVES_TABLES)
// Lesson 9's whole step on tables held here between calls (tables.hpp).
#if defined(ANDREA_BACKEND_CUDA)
using StepTables = impl::DeviceTables;
#else
class StepTables {  // reference::sgns_step on host tables, as training's host runner does
 public:
  StepTables(ConstFloatView wte, ConstFloatView wout, std::int64_t max_pairs, std::int64_t k1)
      : wte_(copy(wte)), wout_(copy(wout)), scratch_(wte.rows(), wte.cols(), max_pairs, k1) {}
  double sgns_step(TokenIds centres, TokenIdBatch targets, float lr) {
    return impl::sgns_step(wte_, wout_, centres, targets, lr, scratch_);
  }
  void copy_to(FloatView wte, FloatView wout) const {
    for (auto [to, from] : {std::pair{wte, wte_.view()}, std::pair{wout, wout_.view()}}) {
      if (to.rows() != from.rows() || to.cols() != from.cols()) {
        throw InputError("copy_to: a table of shape (" + std::to_string(to.rows()) + ", " +
                         std::to_string(to.cols()) + "), expected (" + std::to_string(from.rows()) +
                         ", " + std::to_string(from.cols()) + ")");
      }
      std::copy(from.data(), from.data() + from.size(), to.data());
    }
  }

 private:
  static Matrix copy(ConstFloatView m) {
    Matrix out(m.rows(), m.cols());
    std::copy(m.data(), m.data() + m.size(), out.view().data());
    return out;
  }
  Matrix wte_, wout_;
  impl::TrainingScratch scratch_;
};
#endif

std::map<std::uint64_t, std::unique_ptr<StepTables>>& tables() {
  static std::map<std::uint64_t, std::unique_ptr<StepTables>> held;
  return held;
}
StepTables& table(std::uint64_t handle) {
  const auto found = tables().find(handle);
  if (found == tables().end())
    throw std::out_of_range("no tables with handle " + std::to_string(handle));
  return *found->second;
}
std::uint64_t tables_new(ConstFloatView wte, ConstFloatView wout, std::int64_t max_pairs,
                         std::int64_t k1) {
  static std::uint64_t next = 0;
  tables()[++next] = std::make_unique<StepTables>(wte, wout, max_pairs, k1);
  return next;
}
double tables_step(std::uint64_t h, TokenIds centres, TokenIdBatch targets, float lr) {
  return table(h).sgns_step(centres, targets, lr);
}
void tables_copy_to(std::uint64_t h, FloatView wte, FloatView wout) { table(h).copy_to(wte, wout); }
void tables_delete(std::uint64_t h) { tables().erase(h); }
#endif

#define ANDREA_SERVE(name)                                                       \
  {                                                                              \
#name, [](Reader & in, Writer & out) { serve(#name, &impl::name, in, out); } \
  }

const std::map<std::string, Handler>& handlers() {
  static const std::map<std::string, Handler> served = {
#include ANDREA_SERVES  // ANDREA_SERVE(lookup), ...: this runner's pieces (remote.cmake)
#if defined(ANDREA_SERVES_TABLES)
    {"tables.new", [](Reader& in, Writer& out) { serve("tables.new", &tables_new, in, out); }},
    {"tables.sgns_step",
     [](Reader& in, Writer& out) { serve("tables.sgns_step", &tables_step, in, out); }},
    {"tables.copy_to",
     [](Reader& in, Writer& out) { serve("tables.copy_to", &tables_copy_to, in, out); }},
    {"tables.delete",
     [](Reader& in, Writer& out) { serve("tables.delete", &tables_delete, in, out); }},
#endif
  };
  return served;
}

/// Reads exactly `count` bytes from fd; false at the end of the input.
bool read_all(int fd, void* data, std::size_t count) {
  auto* p = static_cast<char*>(data);
  while (count > 0) {
    const ssize_t n = ::read(fd, p, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, count -= static_cast<std::size_t>(n);
  }
  return true;
}

bool write_all(int fd, const char* p, std::size_t count) {
  while (count > 0) {
    const ssize_t n = ::write(fd, p, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, count -= static_cast<std::size_t>(n);
  }
  return true;
}

#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
/// The launches of one call run no kernel while this lives (cudasim::set_launches_skipped).
struct SkippedLaunches {
  explicit SkippedLaunches(bool on) { cudasim::set_launches_skipped(on); }
  ~SkippedLaunches() { cudasim::set_launches_skipped(false); }
  SkippedLaunches(const SkippedLaunches&) = delete;
  SkippedLaunches& operator=(const SkippedLaunches&) = delete;
};
#endif

/// One request: the piece's name, the settings, its arguments; the answer into `out`.
void answer(std::string_view request, Writer& out) {
  Reader in(request);
  if (in.number<std::uint32_t>() != kRequestMark) throw WireError("a request without its marker");
  const std::string piece = in.text();
  CallSettings s;
  s.order = in.number<std::uint8_t>(), s.seed = in.number<std::uint64_t>();
  s.workers = in.number<std::uint32_t>();
  s.profile = in.number<std::uint8_t>();
  s.skip_launches = in.number<std::uint8_t>();
#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
  cudasim::set_thread_order(static_cast<cudasim::Order>(s.order), s.seed);
  cudasim::set_worker_threads(s.workers);
#endif
  const auto found = handlers().find(piece);
  if (found == handlers().end()) {
    put(out, AnswerHead{.outcome = Outcome::not_served,
                        .message = "this runner has no piece " + piece + "()"});
    return;
  }
#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
  // Asked: this call runs with the profile tool too, and run_call sends the counts back. Its
  // reports are printed nowhere, unless the runner has the tool on already (CUDASIM_TOOLS=profile,
  // grade.py --profile): then an efficiency test's launches are printed like every other.
  const unsigned tools = cudasim::enabled_tools();
  const bool silent = s.profile != 0 && (tools & cudasim::profile) == 0;
  if (s.profile != 0) cudasim::set_tools(tools | cudasim::profile);
  if (silent) cudasim::set_profile_sink([](const std::string&) {});
  {
    const SkippedLaunches second_run(s.skip_launches != 0);  // the trusted side asks (client.hpp)
    found->second(in, out);
  }
  if (s.profile != 0) cudasim::set_tools(tools);
  if (silent) cudasim::set_profile_sink(nullptr);
#else
  found->second(in, out);
#endif
}

// What set_up found wrong, "" if nothing (constant-initialised: set before main).
const char* set_up_error = "";

// The runner's set-up, then the seccomp filter (confine.hpp), before the exercise's code runs
// at all, so that a static initialiser cannot read the runner's own file before the filter
// shuts it. Constructors run by priority, lowest first, every one with a priority before those
// without: 98 comes before the compiler's own (99 for the tools' instrumentation), and
// allowed_symbols.py refuses exercise code with a priority of 98 or less. Priorities up to 100
// are the implementation's, which the runner is. Only what needs no static object of another
// file: mallopt, and the CPU layer's symbolizer, whose state is constant-initialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
__attribute__((constructor(98))) void set_up() {
  andrea::testing::keep_freed_memory();  // before the first allocation: the runner's own setting
#if !defined(ANDREA_BACKEND_GPU)  // CUDA's driver opens its devices when it is first used
#if defined(ANDREA_BACKEND_CUDA)
  cudasim::start_symbolizer();  // a report names its .cu lines, with no process started then
#endif
  set_up_error = confine();
#endif
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace andrea::remote

int main() {
  using namespace andrea::remote;
  if (::fcntl(3, F_GETFD) < 0 || ::fcntl(4, F_GETFD) < 0) {
    std::fprintf(stderr,
                 "the piece runner is started by a test program of a grade build, which "
                 "speaks to it on fds 3 and 4: run python3 lessons/grade.py\n");
    return 2;
  }
  if (*set_up_error != '\0') {
    std::fprintf(stderr, "the piece runner could not give up its rights (%s)\n", set_up_error);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // what a piece prints, in the order of the calls
  for (;;) {
    std::uint64_t length = 0;
    if (!read_all(3, &length, 8)) return 0;  // the test program is done
    if (length > kMaxMessage) return 3;
    // Not zeroed first (make_unique_for_overwrite): read() fills every byte of it.
    const auto request = std::make_unique_for_overwrite<char[]>(length);
    if (!read_all(3, request.get(), length)) return 3;
    Writer out;
    answer(std::string_view(request.get(), length), out);
    const std::uint64_t size = out.data().size();
    if (!write_all(4, reinterpret_cast<const char*>(&size), 8) ||
        !write_all(4, out.data().data(), size)) {
      return 0;
    }
  }
}
