// What every hidden test shares: the instructor's seed, inputs drawn from it, and comparisons
// with the course's solution whose messages name the element, both values and the seed.
//
// The hidden tests are built only when the instructor sets a seed (cmake
// -DANDREA_HIDDEN_SEED=N: ctest names the file that holds it to each test), and are left out of
// the student release: a student sees neither the tests nor their inputs, and a function that recognises the public inputs gains nothing.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"
#include "core/tensor.hpp"
#include "tests/support/golden.hpp"  // Tolerance

namespace andrea::hidden {

using testing::Tolerance;

/// The seed the instructor set, a decimal number: the environment variable ANDREA_HIDDEN_SEED,
/// else the file ANDREA_HIDDEN_SEED_FILE names (ctest sets it). Without either the test program stops with a message saying how to set it.
std::uint64_t seed();

/// "seed 1234 (ANDREA_HIDDEN_SEED=1234 draws these inputs again)": for every failure message.
std::string seed_note();

/// Inputs for one test, drawn from the instructor's seed and the test's own `name`, so that
/// each test has inputs of its own and a new test changes no other's.
class Draw {
 public:
  explicit Draw(std::string_view name);

  /// A whole number in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi);
  /// An odd number in [lo, hi] (lo < hi).
  std::int64_t odd(std::int64_t lo, std::int64_t hi);
  /// A number in [lo, hi] that is not a multiple of 32 (lo < hi).
  std::int64_t not_multiple_of_32(std::int64_t lo, std::int64_t hi);
  /// A (rows, cols) matrix, values uniform in [-1, 1) / sqrt(cols): the scale of the init.
  Matrix table(std::int64_t rows, std::int64_t cols);
  /// The same, with about one element in 64 replaced by a value a copy or one addition must
  /// keep bit for bit: -0.0, a subnormal, a large or a small power of two.
  Matrix table_with_specials(std::int64_t rows, std::int64_t cols);
  /// n token ids in [0, vocab_size): uniform, then id 0 and id vocab_size - 1 (the last row)
  /// at random positions, and one id repeated over a random stretch (up to a quarter of n).
  std::vector<std::int32_t> ids(std::int64_t n, std::int64_t vocab_size);
  /// The generator itself, for what the helpers above do not cover.
  std::mt19937_64& generator() { return generator_; }

 private:
  std::mt19937_64 generator_;
};

/// A (rows, cols) matrix every element of which is NaN: an element that nobody writes stays
/// NaN and fails every comparison.
Matrix poisoned(std::int64_t rows, std::int64_t cols);

/// `got` (the student's) against `expected` (the course's solution), element by element:
/// |got - expected| <= abs + extra_abs[i] + rel * |expected| (NaN matches nothing). On failure:
/// what, the shape, the first element that differs with both values, how many differ, and
/// the seed. `extra_abs`, when given, has one entry per element (the rounding a sum of many
/// terms may carry).
::testing::AssertionResult matches(std::string_view what, ConstFloatView got,
                                   ConstFloatView expected, Tolerance tol,
                                   std::span<const double> extra_abs = {});
/// The same for a vector (shown as shape (n)).
::testing::AssertionResult matches(std::string_view what, std::span<const float> got,
                                   std::span<const float> expected, Tolerance tol);
/// Every bit equal (-0.0 is not +0.0): for copies and results whose order of additions is part
/// of the contract.
::testing::AssertionResult same_bits(std::string_view what, ConstFloatView got,
                                     ConstFloatView expected);
/// One number.
::testing::AssertionResult close_to(std::string_view what, double got, double expected,
                                    Tolerance tol);

/// The message of the andrea::InputError that `call` throws; "" when it returns, and
/// "(threw something else: ...)" for any other exception.
template <class Call>
std::string input_error_of(Call&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  } catch (const NotImplemented&) {
    throw;  // the stub: reported as "not implemented", as by every other test
  } catch (const std::exception& e) {
    return std::string("(threw something else: ") + e.what() + ")";
  }
  return "";
}

/// The student's call and the solution's on the same bad input: both throw andrea::InputError
/// with the same message.
template <class Student, class Solution>
::testing::AssertionResult same_error(std::string_view what, Student&& student,
                                      Solution&& solution) {
  const std::string expected = input_error_of(solution), got = input_error_of(student);
  if (expected.empty()) {
    return ::testing::AssertionFailure()
           << what << ": the course's solution accepted this input (" << seed_note() << ")";
  }
  if (got == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": expected InputError \"" << expected << "\", "
         << (got.empty() ? std::string("but the call returned normally") : "got \"" + got + "\"")
         << "; " << seed_note();
}

}  // namespace andrea::hidden
