// The runner's side of a call (runner.cpp): reads a piece's arguments into buffers of its own,
// calls the piece, and writes the answer: how the call ended, what its kernels did, what it
// returned, then what it left in its output arguments (args.hpp). Whatever the piece throws
// is caught and sent as the answer; nothing it does can end the answer early but ending the
// process, which fails the call on the trusted side.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <tuple>
#include <typeinfo>

#include "core/errors.hpp"
#include "grader/remote/args.hpp"
#include "grader/remote/wire.hpp"
#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/runtime.hpp"  // andrea::CudaError
#endif
#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
#include "cudasim/launch.hpp"       // take_launch_tally
#include "cudasim/tools.hpp"  // take_profiles
#endif

namespace andrea::remote {

/// The answer's head for a call that ran `body`: how it ended and what its kernels did.
template <class Body>
AnswerHead run_call(Body&& body) {
  AnswerHead head;
#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
  cudasim::take_launch_tally();  // this call's launches only
  cudasim::take_profiles();
#endif
  try {
    body();
  } catch (const InputError& e) {
    head.outcome = Outcome::input_error, head.message = e.what();
  } catch (const NotImplemented& e) {
    head.outcome = Outcome::not_implemented, head.message = e.what();
#if defined(ANDREA_BACKEND_CUDA)
  } catch (const CudaError& e) {
    head.outcome = Outcome::cuda_error, head.message = e.what();
#endif
  } catch (const std::exception& e) {
    head.outcome = Outcome::other_exception, head.message = e.what();
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> name(
        abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status), std::free);
    head.type = status == 0 && name ? name.get() : typeid(e).name();
  } catch (...) {
    head.outcome = Outcome::unknown_exception;
  }
#if defined(ANDREA_BACKEND_CUDA) && !defined(ANDREA_BACKEND_GPU)
  cudasim::LaunchTally tally = cudasim::take_launch_tally();
  head.launches = tally.launches, head.failures = std::move(tally.failures);
  head.profiled = cudasim::tools_available() && (cudasim::enabled_tools() & cudasim::profile) != 0;
  if (head.profiled) head.profiles = cudasim::take_profiles();
#else
  head.launches = kNotCounted;  // no CPU layer here
#endif
  return head;
}

/// Serves one call of `fn`, named `piece`: its arguments from `in`, the answer into `out`. A
/// write outside an argument's elements fails the call as a memory error would.
template <class R, class... P>
void serve(const char* piece, R (*fn)(P...), Reader& in, Writer& out) {
  std::tuple<typename Arg<P>::Held...> held;
  std::apply([&](auto&... h) { (h.read(in), ...); }, held);
  if (!in.done()) throw WireError("bytes after the last argument");
  std::conditional_t<std::is_void_v<R>, char, R> result{};
  AnswerHead head = run_call([&] {
    std::apply(
        [&](auto&... h) {
          if constexpr (std::is_void_v<R>) {
            fn(h.get()...);
          } else {
            result = fn(h.get()...);
          }
        },
        held);
  });
  std::size_t argument = 0;
  std::apply(
      [&](const auto&... h) {
        ((++argument,
          h.damage().empty()
              ? void()
              : head.failures.push_back(std::string(piece) + "() wrote outside its argument " +
                                        std::to_string(argument) + ": " + h.damage())),
         ...);
      },
      held);
  put(out, head);
  if constexpr (!std::is_void_v<R>) {
    if (head.outcome == Outcome::returned) put(out, result);
  }
  std::apply([&](auto&... h) { (h.write_back(out), ...); }, held);
}

}  // namespace andrea::remote
