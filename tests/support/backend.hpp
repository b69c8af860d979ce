// The seam where a backend plugs into the shared test bodies. A lesson's tests
// (tests/<piece>_test.cpp) are compiled once and linked into one program per backend: cpu
// (andrea::reference, plain C++), cudasim (andrea::cuda, the kernels on the CPU execution layer)
// and gpu (the same kernels built by nvcc). `backend::lookup` etc. are slots (slots.hpp) that
// the program's binding (binding.hpp, a few lines CMake writes per program) fills with its
// backend's functions, and this_backend() says which one it is. A slot has the signature of its
// function: read it in reference/<piece>.hpp (cuda/<piece>.hpp for a function of the CUDA step
// alone).
//
// In a grade build the binding's functions are the remote backend's (grader/remote/pieces.hpp),
// which send each call to the student's piece runner. The instructor's hidden tests
// (grader/hidden), compiled once per backend, call the remote backend directly.
#pragma once

#include "tests/support/only_on.hpp"

#if defined(ANDREA_HIDDEN_TESTS) && defined(ANDREA_BACKEND_CUDA)
#include "grader/remote/pieces.hpp"  // each call goes to the student's runner
namespace backend = ::andrea::remote::cuda;
#elif defined(ANDREA_HIDDEN_TESTS)
#include "grader/remote/pieces.hpp"
namespace backend = ::andrea::remote::cpu;
#else
#include "tests/support/slots.hpp"  // filled by the program's binding
namespace backend = ::andrea::testing::slots;
#endif

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "tests/support/golden.hpp"

/// Expects `statement` to throw andrea::InputError whose message contains `text`.
#define EXPECT_INPUT_ERROR(statement, text) \
  EXPECT_THAT([&] { statement; },           \
              ::testing::ThrowsMessage<::andrea::InputError>(::testing::HasSubstr(text)))
