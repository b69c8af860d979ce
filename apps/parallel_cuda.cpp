// The CUDA masked lookup as a backend of andrea-embed-parallel; compiled once per flavor
// (cuda/flavor.hpp): `cudasim` runs the kernel on the CPU, `gpu` on the GPU. The sum over
// ranks stays MPI_Allreduce on host buffers: the kernel's result is copied back first.
#include <stdexcept>

#include "apps/parallel_lookup.hpp"
#include "cuda/vocab_parallel.hpp"
#include "cudasim/gpu_presence.hpp"  // presence(): this flavor's runtime, asked

namespace andrea::parallel {

namespace {

LookupBackend this_flavor() {
  namespace k = ::andrea::cuda::ANDREA_CUDA_FLAVOR;
  return {&k::vocab_parallel_lookup, [] {
            // No device: a reason (the run is skipped). A device that fails: an error.
            const ::cudasim::gpu::Presence device = ::cudasim::gpu::presence();
            if (device.kind == device.broken) throw std::runtime_error(device.reason);
            return device.reason;
          }};
}

}  // namespace

// Each object defines its own flavor's function (apps/CMakeLists.txt sets ANDREA_PARALLEL_GPU).
#if ANDREA_PARALLEL_GPU
LookupBackend cuda_lookup_gpu() { return this_flavor(); }
#else
LookupBackend cuda_lookup_cudasim() { return this_flavor(); }
#endif

}  // namespace andrea::parallel
