// expect: cudaGraph_t (CUDA graphs) is not supported by the CPU execution layer
#include <cuda_runtime.h>

void capture(cudaStream_t stream) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  cudaStreamEndCapture(stream, &graph);
}
