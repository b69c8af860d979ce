// The one spelling of each backend, in every program, test label and namespace:
// cpu (the C++ reference), cudasim (the CUDA kernels on the CPU execution layer),
// gpu (the CUDA kernels on a GPU).
#pragma once

#include <string>
#include <string_view>

namespace andrea::cli {

/// For a backend name the programs once took ("cuda-sim", "cuda"), the message that names its
/// spelling now: "backend 'cuda-sim' is spelled 'cudasim' now"; "" for any other name.
inline std::string renamed_backend(std::string_view name) {
  const std::string_view now = name == "cuda-sim" ? "cudasim" : name == "cuda" ? "gpu" : "";
  if (now.empty()) return {};
  return "backend '" + std::string(name) + "' is spelled '" + std::string(now) + "' now";
}

}  // namespace andrea::cli
