// expect: cudaResourceDesc (texture and surface memory) is not supported by the CPU execution layer
#include <cuda_runtime.h>

// A texture object set up as CUDA's samples do: the first refused name stops compilation, before
// the compiler reports the unknown names that follow it.
void make_texture(float* buffer, size_t bytes, unsigned long long* texture) {
  cudaResourceDesc resource = {};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = buffer;
  resource.res.linear.desc = cudaCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = bytes;
  cudaTextureDesc description = {};
  cudaCreateTextureObject(texture, &resource, &description, nullptr);
}
