// The CUDA pieces as a CLI backend. This file is compiled once per flavor of
// the CUDA build (cuda/flavor.hpp): `cudasim` gives the cudasim backend (kernels
// run on the CPU), `gpu` the gpu backend (kernels run on the GPU).
#include "apps/backend.hpp"
#include "cuda/combine.hpp"
#include "cuda/device_tables.hpp"
#include "cuda/dot.hpp"
#include "cuda/norm.hpp"
#include "cuda/params.hpp"
#include "cudasim/gpu_presence.hpp"  // presence(): this flavor's runtime, asked

namespace andrea::cli {
namespace {

// The CUDA pieces of the flavor this file is compiled for: andrea::cuda names them (cuda/flavor.hpp
// puts them in an inline namespace named after the flavor).
Backend flavor_backend(bool gpu) {
  namespace k = ::andrea::cuda;
  return {gpu ? "gpu" : "cudasim",
          gpu ? "CUDA kernels (cuda/) on the GPU"
              : "CUDA kernels (cuda/) on the CPU execution layer (cudasim/)",
          &k::materialize, &k::combine, &k::row_norms, &k::cosine_matrix, &k::dot,
          // Lesson 9's runner on this flavor: the tables stay in device memory for the whole run.
          &training::runner_of<k::DeviceTables>, [] { return ::cudasim::gpu::presence().reason; }};
}

}  // namespace

// ANDREA_CUDA_FLAVOR_GPU (apps/CMakeLists.txt): 1 in the gpu flavor's object, 0 in cudasim's.
#if ANDREA_CUDA_FLAVOR_GPU
Backend cuda_backend_gpu() { return flavor_backend(true); }
#else
Backend cuda_backend_cudasim() { return flavor_backend(false); }
#endif

}  // namespace andrea::cli
