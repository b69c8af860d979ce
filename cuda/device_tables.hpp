// The program's resident trainer for lesson 9: wte and wout in device memory for a whole run.
// Not a lesson piece: it is built on lesson 9's launches (cuda/training.hpp) and lesson 8's
// deterministic scatter (cuda/backward.hpp), and no exercise asks for it.
#pragma once

#include <cstdint>
#include <memory>

#include "core/tensor.hpp"
#include "cuda/flavor.hpp"

ANDREA_CUDA_BEGIN

/// Lesson 9 on the GPU for a whole run: wte and wout stay in device memory. A step uploads
/// the batch's ids and their grouping, launches lesson 9's kernels, lesson 8's deterministic
/// scatter (group_positions, launch_wte_backward) into a compact gradient of the batch's
/// distinct rows and a sparse SGD step (launch_sgd_rows), and reads back only the P (1 + k)
/// scores (to refuse a non-finite one) and the loss terms. No step does O(V) work. Copying
/// the tables each step, as the pieces of cuda/training.hpp do, would move 2 V d_model floats
/// per sentence.
class DeviceTables {
 public:
  /// Uploads wte and wout (V, d_model) float32 and sizes the buffers of one step for at
  /// most max_pairs pairs of targets_per_pair (1 + k) targets. Throws andrea::InputError
  /// when a table is empty, the shapes differ or a size is < 1; andrea::CudaError.
  DeviceTables(ConstFloatView wte, ConstFloatView wout, std::int64_t max_pairs,
               std::int64_t targets_per_pair);
  ~DeviceTables();
  DeviceTables(const DeviceTables&) = delete;
  DeviceTables& operator=(const DeviceTables&) = delete;

  /// reference::sgns_step's contract and result on the tables held here: centres (P),
  /// targets (P, 1 + k) with P <= max_pairs; returns the batch's loss. Throws
  /// andrea::InputError, changing nothing, on an id outside [0, V), lr not finite and > 0,
  /// a non-finite score or shapes that disagree, with the reference's messages. One
  /// difference: the reference also refuses finite scores whose row gradients overflow
  /// (tables near 1e38); this step does not look at the row gradients. On the CPU execution
  /// layer the bits equal the reference's; on a GPU they may differ in the last places: nvcc
  /// fuses a * b + c into one multiply-add, and the device's expf, exp and log1p are not
  /// glibc's.
  double sgns_step(TokenIds centres, TokenIdBatch targets, float lr);

  /// Copies the tables back: wte, wout (V, d_model). Throws andrea::InputError on a shape.
  void copy_to(FloatView wte, FloatView wout) const;

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

ANDREA_CUDA_END
