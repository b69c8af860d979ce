#include "apps/backend.hpp"

namespace andrea::cli {

Backend reference_backend();
#if defined(ANDREA_HAVE_CUDA_SIM)
Backend cuda_backend_sim();
#endif
#if defined(ANDREA_HAVE_CUDA_GPU)
Backend cuda_backend_gpu();
#endif

std::vector<Backend> backends() {
  std::vector<Backend> all;
#if defined(ANDREA_HAVE_CUDA_GPU)
  all.push_back(cuda_backend_gpu());
#endif
  all.push_back(reference_backend());
#if defined(ANDREA_HAVE_CUDA_SIM)
  all.push_back(cuda_backend_sim());
#endif
  return all;
}

}  // namespace andrea::cli
