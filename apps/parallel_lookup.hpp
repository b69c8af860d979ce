// The masked lookups andrea-embed-parallel can run: the plain C++ one and, when built,
// the CUDA kernel on the CPU execution layer (cudasim) or on a GPU (gpu).
#pragma once

#include <string>

#include "core/tensor.hpp"
#include "core/vocab_shard.hpp"

namespace andrea::parallel {

struct LookupBackend {
  /// reference::vocab_parallel_lookup or cuda::vocab_parallel_lookup: one rank's part.
  void (*lookup)(ConstFloatView wte_shard, const VocabShard& shard, TokenIdBatch ids,
                 FloatView out) = nullptr;
  /// Empty when it can run here, else why not (e.g. "no CUDA device: cudaGetDeviceCount returned
  /// cudaErrorNoDevice ..."); throws when a device is there and fails (cuda/device.hpp).
  std::string (*unavailable)() = nullptr;
};

LookupBackend cuda_lookup_cudasim();  // apps/parallel_cuda.cpp, one object per flavor
LookupBackend cuda_lookup_gpu();

}  // namespace andrea::parallel
