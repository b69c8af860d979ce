// The two exceptions the project throws.
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

/// A lesson's function that the student has not written yet (grade mode stubs).
class NotImplemented : public std::logic_error {
 public:
  NotImplemented(const std::string& lesson, const std::string& function)
      : std::logic_error("lesson " + lesson + ": " + function +
                         " is not implemented yet (write it in lessons/" + lesson + "/)") {}
};

}  // namespace andrea
