#include "apps/backend.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apps/backend_name.hpp"
#include "core/errors.hpp"

namespace andrea::cli {

Backend cpu_backend();
#if defined(ANDREA_HAVE_CUDA_CUDASIM)
Backend cuda_backend_cudasim();
#endif
#if defined(ANDREA_HAVE_CUDA_GPU)
Backend cuda_backend_gpu();
#endif

std::vector<Backend> backends() {
  std::vector<Backend> all;
#if defined(ANDREA_HAVE_CUDA_GPU)
  all.push_back(cuda_backend_gpu());
#endif
  all.push_back(cpu_backend());
#if defined(ANDREA_HAVE_CUDA_CUDASIM)
  all.push_back(cuda_backend_cudasim());
#endif
  return all;
}

const Backend& pick_backend(const std::vector<Backend>& all, const std::string& name, bool given) {
  if (const std::string renamed = renamed_backend(name); given && !renamed.empty()) {
    throw InputError(renamed);
  }
  for (const Backend& b : all) {
    if (!given ? b.unavailable().empty() : b.name == name) {
      if (const std::string why = b.unavailable(); !why.empty()) {
        throw InputError(fmt::format("backend {} is not usable here: {}", name, why));
      }
      return b;
    }
  }
  std::vector<std::string_view> names;
  for (const Backend& b : all) names.push_back(b.name);
  throw InputError(
      fmt::format("unknown backend '{}': this build has {}", name, fmt::join(names, ", ")));
}

}  // namespace andrea::cli
