// Which backend a test program runs, and the tests that run on some backends only. A lesson's
// test body is compiled once for every backend (backend.hpp); its tests of one backend's step
// (sgd_step_rows is C++ only, the atomic backward CUDA only, the efficiency tests need the
// CPU layer's counts) say so with ANDREA_ONLY_ON, and the entry point (main.cpp) leaves them
// out of the other programs' lists.
#pragma once

#include <string>

namespace andrea::testing {

/// The backends a lesson's tests run on.
enum class Backend { cpu, cudasim, gpu };

/// The backend of this program (defined by its entry point, tests/support/main.cpp).
Backend this_backend();

/// True on the two backends that run the CUDA kernels.
inline bool on_cuda() { return this_backend() != Backend::cpu; }

/// Registers a gtest filter pattern ("SgdStepRows.*", "Training.LossFalls*") whose tests run on
/// the named backends only ("cpu", "cudasim gpu"); the entry point leaves them out of every
/// other backend's list, so they are neither listed nor run there. A name that is no backend, or
/// a pattern with '-', aborts the program with the reason. Returns true (for ANDREA_ONLY_ON,
/// which registers at static initialisation).
bool only_on(const char* pattern, const char* backends);

/// The patterns that do not run on `backend`, joined by ':' (empty when none).
std::string left_out_on(Backend backend);

}  // namespace andrea::testing

#define ANDREA_ONLY_ON_CAT2(a, b) a##b
#define ANDREA_ONLY_ON_CAT(a, b) ANDREA_ONLY_ON_CAT2(a, b)
/// ANDREA_ONLY_ON("BackwardAtomic.*", "cudasim gpu"): these tests run on those backends only.
#define ANDREA_ONLY_ON(pattern, backends)                                         \
  [[maybe_unused]] static const bool ANDREA_ONLY_ON_CAT(andrea_only_on_, __COUNTER__) = \
      ::andrea::testing::only_on(pattern, backends)
