// The CUDA pieces as a CLI backend. This file is compiled once per flavor of
// the CUDA build (cuda/flavor.hpp): `cudasim` gives the cudasim backend (kernels
// run on the CPU), `gpu` the gpu backend (kernels run on the GPU).
#include "apps/backend.hpp"
#include "cuda/combine.hpp"
#include "cuda/device.hpp"
#include "cuda/device_tables.hpp"
#include "cuda/dot.hpp"
#include "cuda/norm.hpp"
#include "cuda/params.hpp"

#define ANDREA_CONCAT_(a, b) a##b
#define ANDREA_CONCAT(a, b) ANDREA_CONCAT_(a, b)
#define ANDREA_STRINGIFY_(a) #a
#define ANDREA_STRINGIFY(a) ANDREA_STRINGIFY_(a)

namespace andrea::cli {

Backend ANDREA_CONCAT(cuda_backend_, ANDREA_CUDA_FLAVOR)() {
  namespace k = ::andrea::cuda::ANDREA_CUDA_FLAVOR;
  const bool gpu = std::string_view(ANDREA_STRINGIFY(ANDREA_CUDA_FLAVOR)) == "gpu";
  return {gpu ? "gpu" : "cudasim",
          gpu ? "CUDA kernels (cuda/) on the GPU"
              : "CUDA kernels (cuda/) on the CPU execution layer (cudasim/)",
          &k::materialize, &k::combine, &k::row_norms, &k::cosine_matrix, &k::dot,
          // Lesson 9's runner on this flavor: the tables stay in device memory for the whole run.
          &training::runner_of<k::DeviceTables>, [] {
            std::string reason;
            return k::device_available(&reason) ? std::string() : reason;
          }};
}

}  // namespace andrea::cli
