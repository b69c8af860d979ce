// Templates as CUDA code uses them: a kernel templated on a functor (SAXPY and a clamp passed
// as objects), on a type and a compile-time count (each thread handles kItems elements),
// explicit and deduced template arguments, a template __device__ helper with a trait, and a
// kernel over vector types (uchar4 pixels to float4, short2 pairs). Checked against the host.
// Exit status 0 when it passes.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    const cudaError_t e = (call);                                              \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorName(e), \
                   cudaGetErrorString(e));                                     \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)

struct Saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};
struct Clamp {
  float lo, hi;
  __host__ __device__ float operator()(float x, float y) const {
    return fminf(fmaxf(x + y, lo), hi);
  }
};

template <class Op, int kItems>
__global__ void transform(const float* x, const float* y, float* out, int n, Op op) {
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * kItems;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (first + k < n) out[first + k] = op(x[first + k], y[first + k]);
  }
}

template <class T>
__device__ T twice(T v) {
  if constexpr (std::is_integral_v<T>) {
    return v << 1;
  } else {
    return v + v;
  }
}

template <class T>
__global__ void doubleAll(T* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = twice(data[i]);
}

__global__ void pixels(const uchar4* in, float4* out, short2* pairs, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const uchar4 p = in[i];
    out[i] = make_float4(p.x / 255.0f, p.y / 255.0f, p.z / 255.0f, p.w / 255.0f);
    pairs[i] = make_short2(static_cast<short>(p.x - p.y), static_cast<short>(p.z + p.w));
  }
}

template <class Op, int kItems>
bool runTransform(Op op, const std::vector<float>& x, const std::vector<float>& y) {
  const int n = static_cast<int>(x.size());
  float *dx, *dy, *dout;
  CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const int threads = 128, blocks = (n + threads * kItems - 1) / (threads * kItems);
  transform<Op, kItems><<<blocks, threads>>>(dx, dy, dout, n, op);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> out(n);
  CUDA_CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(dx));
  CUDA_CHECK(cudaFree(dy));
  CUDA_CHECK(cudaFree(dout));
  for (int i = 0; i < n; ++i) {
    if (out[i] != op(x[i], y[i])) {
      std::printf("transform<%d items>: element %d is %g, expected %g\n", kItems, i, out[i],
                  op(x[i], y[i]));
      return false;
    }
  }
  return true;
}

int main() {
  const int n = 3000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * (i % 17) - 3.0f;
    y[i] = 0.25f * (i % 13);
  }
  bool ok = runTransform<Saxpy, 1>(Saxpy{2.0f}, x, y) &&
            runTransform<Saxpy, 4>(Saxpy{-1.5f}, x, y) &&
            runTransform<Clamp, 3>(Clamp{-1.0f, 1.0f}, x, y);

  std::vector<int> ints(n);
  std::vector<double> doubles(n);
  for (int i = 0; i < n; ++i) {
    ints[i] = i - 1000;
    doubles[i] = i * 0.125;
  }
  int* di;
  double* dd;
  CUDA_CHECK(cudaMalloc(&di, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dd, n * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(di, ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dd, doubles.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  doubleAll<<<(n + 255) / 256, 256>>>(di, n);          // T deduced: int
  doubleAll<double><<<(n + 255) / 256, 256>>>(dd, n);  // T given
  CUDA_CHECK(cudaGetLastError());
  std::vector<int> ints2(n);
  std::vector<double> doubles2(n);
  CUDA_CHECK(cudaMemcpy(ints2.data(), di, n * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(doubles2.data(), dd, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ok = ok && ints2[i] == 2 * ints[i] && doubles2[i] == 2 * doubles[i];

  std::vector<uchar4> px(n);
  for (int i = 0; i < n; ++i) {
    px[i] =
        make_uchar4(static_cast<unsigned char>(i), static_cast<unsigned char>(i * 3),
                    static_cast<unsigned char>(255 - i % 256), static_cast<unsigned char>(i / 12));
  }
  uchar4* dpx;
  float4* dout;
  short2* dpairs;
  CUDA_CHECK(cudaMalloc(&dpx, n * sizeof(uchar4)));
  CUDA_CHECK(cudaMalloc(&dout, n * sizeof(float4)));
  CUDA_CHECK(cudaMalloc(&dpairs, n * sizeof(short2)));
  CUDA_CHECK(cudaMemcpy(dpx, px.data(), n * sizeof(uchar4), cudaMemcpyHostToDevice));
  pixels<<<(n + 127) / 128, 128>>>(dpx, dout, dpairs, n);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float4> out(n);
  std::vector<short2> pairs(n);
  CUDA_CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(pairs.data(), dpairs, n * sizeof(short2), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    ok = ok && out[i].x == px[i].x / 255.0f && out[i].w == px[i].w / 255.0f &&
         pairs[i].x == px[i].x - px[i].y && pairs[i].y == px[i].z + px[i].w;
  }
  static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4 && sizeof(short2) == 4 &&
                    alignof(float4) == 16 && sizeof(double2) == 16 && alignof(short4) == 8,
                "CUDA's vector type layout");
  CUDA_CHECK(cudaFree(di));
  CUDA_CHECK(cudaFree(dd));
  CUDA_CHECK(cudaFree(dpx));
  CUDA_CHECK(cudaFree(dout));
  CUDA_CHECK(cudaFree(dpairs));
  std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
