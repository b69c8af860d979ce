// Switching stacks (context.hpp). Every __syncthreads() suspends each thread of the block and
// resumes the next, so this is the layer's inner loop: see "What a block costs" in README.md.
#include "cudasim/context.hpp"

#include <cstdint>

#if defined(__x86_64__) && defined(__ELF__) && !defined(CUDASIM_BOOST_SWITCH)
#define CUDASIM_OWN_SWITCH 1
#else
#include <boost/context/detail/fcontext.hpp>
#endif

namespace cudasim::detail {

#if defined(CUDASIM_OWN_SWITCH)

// switch_context(save = %rdi, to = %rsi): pushes the registers the System V ABI says a call
// keeps (its return address is already on the stack), stores the stack pointer in *save, loads
// `to` and pops the same from there. It ends with `ret`, not an indirect jump as Boost's
// jump_fcontext does: every thread is suspended by the same call in Block::switch_to, so the
// CPU's return-address predictor guesses right at each return of the resumed thread, where
// after a jump it would be one call out of step and guess wrong at each. The x87 and SSE
// control words (rounding modes), which Boost saves too, are left alone: CUDA device code
// cannot change them, so all the threads of a worker share the OS thread's.
asm(R"(
  .text
  .p2align 4
  .globl cudasim_switch_context
  .type cudasim_switch_context, @function
cudasim_switch_context:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size cudasim_switch_context, .-cudasim_switch_context
  .section .note.GNU-stack, "", @progbits
  .text
)");

extern "C" void cudasim_switch_context(Context* save, Context to);

void switch_context(Context* save, Context to) { cudasim_switch_context(save, to); }

// A new stack as switch_context leaves one: six registers (zero), then the address that its
// `ret` goes to, fiber_entry, and a null return address for it, which ends a debugger's backtrace
// and leaves the stack pointer where a function expects it (16-byte aligned before a call).
Context make_context(void* top, std::size_t /*size*/) {
  auto* sp = reinterpret_cast<std::uintptr_t*>(reinterpret_cast<std::uintptr_t>(top) & ~15ull);
  *--sp = 0;
  *--sp = reinterpret_cast<std::uintptr_t>(&fiber_entry);
  for (int i = 0; i < 6; ++i) *--sp = 0;  // %rbp, %rbx, %r12-%r15
  return sp;
}

#else  // Boost.Context's fcontext: the context that leaves is handed to the one that resumes

namespace {
namespace fc = boost::context::detail;

void start(fc::transfer_t from) {
  *static_cast<Context*>(from.data) = from.fctx;  // what switch_context would have saved
  fiber_entry();
}

}  // namespace

void switch_context(Context* save, Context to) {
  const fc::transfer_t from = fc::jump_fcontext(to, save);
  *static_cast<Context*>(from.data) = from.fctx;
}

Context make_context(void* top, std::size_t size) { return fc::make_fcontext(top, size, start); }

#endif

}  // namespace cudasim::detail
