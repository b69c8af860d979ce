// The seam where a backend plugs into the shared test bodies. Each test
// executable is compiled once per backend; `backend::lookup` etc. resolve to
// andrea::reference (plain C++) or andrea::cuda (the kernels, run by the CPU
// execution layer or by a real GPU). In grade mode the same namespaces are
// built from the student's files in lessons/ and run by a program of their own, the piece
// runner, which each call is sent to (tests/remote/). Each test file includes its own
// pieces' headers, cuda/<piece>.hpp or reference/<piece>.hpp, under the same #if.
#pragma once

#if defined(ANDREA_BACKEND_REMOTE) && defined(ANDREA_BACKEND_CUDA)
#include "tests/remote/pieces.hpp"  // a grade build: each call goes to the student's runner
namespace backend = ::andrea::remote::cuda;
#elif defined(ANDREA_BACKEND_REMOTE)
#include "tests/remote/pieces.hpp"
namespace backend = ::andrea::remote::cpu;
#elif defined(ANDREA_BACKEND_CUDA)
namespace andrea::cuda {}
namespace backend = ::andrea::cuda;
#else
namespace andrea::reference {}
namespace backend = ::andrea::reference;
#endif

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "tests/support/golden.hpp"

/// Expects `statement` to throw andrea::InputError whose message contains `text`.
#define EXPECT_INPUT_ERROR(statement, text) \
  EXPECT_THAT([&] { statement; },           \
              ::testing::ThrowsMessage<::andrea::InputError>(::testing::HasSubstr(text)))
