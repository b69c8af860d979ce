// The switch between two CUDA threads' stacks (internal to cudasim): what block.cpp suspends and
// resumes its fibers with. On x86-64, a dozen instructions of our own (context.cpp); elsewhere,
// Boost.Context's fcontext functions.
#pragma once

#include <cstddef>

namespace cudasim::detail {

/// A suspended context is the stack pointer it saved when it left.
using Context = void*;

/// Saves the running context in *save, then resumes `to`. Returns when some context resumes
/// the one saved in *save.
void switch_context(Context* save, Context to);

/// What a new context runs, on its own stack (block.cpp): never returns, but ends by switching
/// away for good.
[[noreturn]] void fiber_entry();

/// A context that, when first resumed, calls fiber_entry() on the stack [top - size, top).
Context make_context(void* top, std::size_t size);

}  // namespace cudasim::detail
