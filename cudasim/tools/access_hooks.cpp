// The runtime of g++'s -fsanitize=thread instrumentation, as the kernel translation units call
// it (the names and signatures of LLVM's and GCC's tsan_interface.h): every load and store
// calls __tsan_readN/__tsan_writeN first, every atomic operation is a call that must also do
// the operation. Outside a launch with a tool on, a hook is one load and one branch.
// This file itself is not instrumented. Symbols that g++ 12 emits for kernels:
// `nm -u` on a cudasim_tu object lists them.
#include <cstdint>

#include "cudasim/tools/internal.hpp"

namespace {
using cudasim::tools::g_active;
using cudasim::tools::kAtomic;
using cudasim::tools::kRead;
using cudasim::tools::kWrite;
using cudasim::tools::on_access;

#define CUDASIM_PC reinterpret_cast<std::uintptr_t>(__builtin_return_address(0))
#define CUDASIM_SEEN(p, n, kind)                                              \
  do {                                                                        \
    if (__builtin_expect(g_active, false)) on_access(p, n, kind, CUDASIM_PC); \
  } while (false)
}  // namespace

extern "C" {

void __tsan_init() { cudasim::tools::g_instrumented = true; }  // each instrumented TU
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}

#define CUDASIM_PLAIN(n)                                                  \
  void __tsan_read##n(void* p) { CUDASIM_SEEN(p, n, kRead); }             \
  void __tsan_write##n(void* p) { CUDASIM_SEEN(p, n, kWrite); }           \
  void __tsan_unaligned_read##n(void* p) { CUDASIM_SEEN(p, n, kRead); }   \
  void __tsan_unaligned_write##n(void* p) { CUDASIM_SEEN(p, n, kWrite); } \
  void __tsan_volatile_read##n(void* p) { CUDASIM_SEEN(p, n, kRead); }    \
  void __tsan_volatile_write##n(void* p) { CUDASIM_SEEN(p, n, kWrite); }
CUDASIM_PLAIN(1)
CUDASIM_PLAIN(2)
CUDASIM_PLAIN(4)
CUDASIM_PLAIN(8)
CUDASIM_PLAIN(16)
#undef CUDASIM_PLAIN
void __tsan_read_range(void* p, unsigned long size) { CUDASIM_SEEN(p, size, kRead); }
void __tsan_write_range(void* p, unsigned long size) { CUDASIM_SEEN(p, size, kWrite); }

// Atomics: the operation itself, sequentially consistent whatever order was asked (the order
// argument need not be a constant here), after telling the tools.
#define CUDASIM_ATOMIC(bits, T)                                                                    \
  T __tsan_atomic##bits##_load(const volatile T* a, int) {                                         \
    CUDASIM_SEEN(a, sizeof(T), kRead | kAtomic);                                                   \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                   \
  }                                                                                                \
  void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                                      \
    CUDASIM_SEEN(a, sizeof(T), kWrite | kAtomic);                                                  \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                \
  T __tsan_atomic##bits##_exchange(volatile T* a, T v, int) {                                      \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                            \
  }                                                                                                \
  T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int) {                                     \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int) {                                     \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int) {                                     \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int) {                                      \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                \
  T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int) {                                     \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int) {                                    \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                            \
  }                                                                                                \
  bool __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* expected, T v, int, int) {  \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  }                                                                                                \
  bool __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* expected, T v, int, int) {    \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  }                                                                                                \
  T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T expected, T v, int, int) {         \
    CUDASIM_SEEN(a, sizeof(T), kRead | kWrite | kAtomic);                                          \
    __atomic_compare_exchange_n(a, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);       \
    return expected;                                                                               \
  }
CUDASIM_ATOMIC(8, std::uint8_t)
CUDASIM_ATOMIC(16, std::uint16_t)
CUDASIM_ATOMIC(32, std::uint32_t)
CUDASIM_ATOMIC(64, std::uint64_t)
#undef CUDASIM_ATOMIC

void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

}  // extern "C"
