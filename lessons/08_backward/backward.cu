// Lesson 08_backward — exercise. Generated from cuda/backward.cu by lessons/make_exercises.py.
// Replace each `throw NotImplemented(...)` with your code; the contract is in
// cuda/backward.hpp. Run this lesson's tests: ctest --preset grade -L L08
// Lesson 8 — the backward pass of x[b, t] = wte[ids[b, t]] + wpe[t]:
//   dwte[v] += sum of dout[p] over the flat positions p = b * n + t with ids[p] = v
//   dwpe[t] += sum over b of dout[b * n + t]
//
// Step 1, atomic: one thread per element of dout, i = p * d + c.
//   grid = ceil(B * n * d / 256) blocks of 256 threads
//   thread i:  atomicAdd(&dwte[ids[p] * d + c], dout[i]);  atomicAdd(&dwpe[(p % n) * d + c], dout[i])
// Many threads add into the same element when an id repeats; atomicAdd makes each
// read-add-write indivisible (a plain += would lose updates), but the order in which they
// land is the order the threads happen to run: the sum is right up to rounding, and its
// low bits change with that order.
//
// Step 2, deterministic: first group the positions of each id (on the host, a counting sort,
// see group_positions), then
//   grid = ceil(U * d / 256) blocks of 256 threads, U = the number of distinct ids
//   thread i = u * d + c:  acc = dwte[v][c]; for each position p of v, ascending: acc += dout[p][c]
// Each element of dwte is owned by one thread, which adds in the reference's order: the same
// float additions in the same order, so the same bits, whatever order the threads run in.
// dwpe likewise: thread i = t * d + c adds dout[b * n + t][c] for b = 0 .. B - 1.
#include "cuda/backward.hpp"

#include <vector>

#include "cuda/device_buffer.hpp"
#include "cuda/runtime.hpp"
#include "reference/check.hpp"

ANDREA_CUDA_BEGIN

namespace {

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::int64_t threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

// --- Step 1: the atomic kernel and its launch (embedding_backward_atomic). ----------
// Your helper functions and kernels go here.

// --- Step 2: group the positions of each id, then one owner thread per element -----
// (wte_backward, wpe_backward, embedding_backward).
// Your helper functions and kernels go here.

}  // namespace

// Step 1.
void embedding_backward_atomic(TokenIdBatch ids, ConstFloatView dout, FloatView dwte,
                               FloatView dwpe) {
  // TODO(lesson 08_backward): write embedding_backward_atomic() here.
  throw NotImplemented("08_backward/backward.cu", "embedding_backward_atomic");
}

// Step 2.
void wte_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte) {
  // TODO(lesson 08_backward): write wte_backward() here.
  throw NotImplemented("08_backward/backward.cu", "wte_backward");
}

void wpe_backward(ConstFloatView dout, std::int64_t n, FloatView dwpe) {
  // TODO(lesson 08_backward): write wpe_backward() here.
  throw NotImplemented("08_backward/backward.cu", "wpe_backward");
}

void embedding_backward(TokenIdBatch ids, ConstFloatView dout, FloatView dwte, FloatView dwpe) {
  // TODO(lesson 08_backward): write embedding_backward() here.
  throw NotImplemented("08_backward/backward.cu", "embedding_backward");
}

ANDREA_CUDA_END
