#include "apps/backend.hpp"

namespace andrea::cli {

Backend reference_backend();
#if defined(ANDREA_HAVE_CUDA_SIM)
Backend cuda_sim_backend();
#endif
#if defined(ANDREA_HAVE_CUDA_GPU)
Backend cuda_gpu_backend();
#endif

std::vector<Backend> backends() {
  std::vector<Backend> all;
#if defined(ANDREA_HAVE_CUDA_GPU)
  all.push_back(cuda_gpu_backend());
#endif
  all.push_back(reference_backend());
#if defined(ANDREA_HAVE_CUDA_SIM)
  all.push_back(cuda_sim_backend());
#endif
  return all;
}

}  // namespace andrea::cli
