// Matrix transpose through a shared-memory tile (Mark Harris, "An Efficient Matrix Transpose in
// CUDA C/C++"): a block of 32 x 8 threads moves a 32 x 32 tile, reading rows and writing rows,
// the tile padded to 33 columns so that a column of it falls into 32 different banks. The host
// side of the program is in transpose_main.cpp; this file gives it transposeOnDevice().
#include <cuda_runtime.h>
#include <helper_check.h>

#include "transpose.h"

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void transposeTiled(float* odata, const float* idata, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;  // column in idata
  int y = blockIdx.y * TILE_DIM + threadIdx.y;  // row in idata
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;  // column in odata
  y = blockIdx.x * TILE_DIM + threadIdx.y;  // row in odata
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < rows && y + j < cols) odata[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

void transposeOnDevice(const float* h_in, float* h_out, int rows, int cols) {
  const size_t bytes = static_cast<size_t>(rows) * cols * sizeof(float);
  float *d_in, *d_out;
  checkCudaErrors(cudaMalloc(&d_in, bytes));
  checkCudaErrors(cudaMalloc(&d_out, bytes));
  checkCudaErrors(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
  const dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
  const dim3 block(TILE_DIM, BLOCK_ROWS);
  transposeTiled<<<grid, block>>>(d_out, d_in, rows, cols);
  getLastCudaError("transposeTiled failed");
  checkCudaErrors(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_out));
}
