// The exceptions of the plain C++ code (the CUDA code adds andrea::CudaError,
// in cuda/runtime.hpp, for a failed CUDA call).
#pragma once

#include <stdexcept>
#include <string>

namespace andrea {

/// Bad input: an id outside [0, V), a sequence longer than T, shapes that disagree,
/// a non-finite value, an unreadable file. Thrown before anything is written.
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A write that failed: standard output or an output file could not take the bytes (a full
/// disk, a closed stream, a file-size limit). Raised after the input was accepted; the
/// programs exit 1 for it (2 is bad input).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A lesson's function that the student has not written yet (the exercise stubs).
/// file: "01_lookup/lookup.cu"; function: "lookup".
class NotImplemented : public std::logic_error {
 public:
  NotImplemented(const std::string& file, const std::string& function)
      : std::logic_error("not implemented yet: " + function + "() in lessons/" + file) {}
};

}  // namespace andrea
