// The seam where a backend plugs into the shared test bodies. Each test
// executable is compiled once per backend; `backend::lookup` etc. resolve to
// andrea::reference (plain C++) or andrea::cuda (the kernels, run by the CPU
// execution layer or by a real GPU). In grade mode the same namespaces are
// built from the student's files in lessons/.
#pragma once

#if defined(ANDREA_BACKEND_CUDA)
#include "cuda/backward.hpp"
#include "cuda/combine.hpp"
#include "cuda/dot.hpp"
#include "cuda/lookup.hpp"
#include "cuda/norm.hpp"
#include "cuda/params.hpp"
#include "cuda/position.hpp"
#include "cuda/rope.hpp"
#include "cuda/sinusoidal.hpp"
#include "cuda/vocab_parallel.hpp"
namespace backend = ::andrea::cuda;
#else
#include "reference/backward.hpp"
#include "reference/combine.hpp"
#include "reference/dot.hpp"
#include "reference/lookup.hpp"
#include "reference/norm.hpp"
#include "reference/params.hpp"
#include "reference/position.hpp"
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#include "reference/vocab_parallel.hpp"
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
