// The CLI's view of a backend: the pieces it calls, behind one table, so the
// same driver runs the plain C++ reference, the CUDA kernels on the CPU
// execution layer, or the CUDA kernels on a GPU.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.hpp"
#include "core/tensor.hpp"
#include "reference/params.hpp"
#include "training/trainer.hpp"

namespace andrea::cli {

struct Backend {
  std::string_view name;         ///< "cpu", "cudasim", "gpu" (apps/backend_name.hpp)
  std::string_view description;  ///< one line for the report
  ParameterReport (*materialize)(const Config&, std::uint64_t, FloatView, FloatView);
  void (*combine)(ConstFloatView, ConstFloatView, TokenIds, FloatView);
  void (*row_norms)(ConstFloatView, std::span<float>);
  void (*cosine_matrix)(ConstFloatView, FloatView);
  float (*dot)(std::span<const float>, std::span<const float>);
  training::RunnerFactory sgns_runner;  ///< lesson 9: where `train` keeps its tables
  /// Empty when usable; otherwise why not (e.g. "no CUDA device: ...").
  std::string (*unavailable)();
};

/// Every backend this program was built with, in order of preference for the
/// default: gpu (when a GPU is usable), then cpu, then cudasim.
std::vector<Backend> backends();

/// The backend named `name` (`given`) or else the first usable one. Throws
/// andrea::InputError naming the backends of this build when the name is unknown (naming the
/// new spelling of an old one: cuda-sim, cuda), or
/// saying why the one named is not usable here (e.g. "no CUDA device: ...").
const Backend& pick_backend(const std::vector<Backend>& all, const std::string& name, bool given);

}  // namespace andrea::cli
