// CUDA's built-in types and variables (dim3, float4, threadIdx, ...) for code compiled by g++.
#pragma once

struct uint3 {
  unsigned x, y, z;
};

// Vector types, aligned like CUDA's so that one load moves the whole vector.
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(16) double2 {
  double x, y;
};
struct float3 {
  float x, y, z;
};
struct alignas(8) int2 {
  int x, y;
};
struct int3 {
  int x, y, z;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
constexpr float2 make_float2(float x, float y) { return {x, y}; }
constexpr float3 make_float3(float x, float y, float z) { return {x, y, z}; }
constexpr float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
constexpr double2 make_double2(double x, double y) { return {x, y}; }
constexpr int2 make_int2(int x, int y) { return {x, y}; }
constexpr int3 make_int3(int x, int y, int z) { return {x, y, z}; }
constexpr int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
constexpr uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
constexpr uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
constexpr uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

/// Grid and block sizes. Missing dimensions are 1, as in CUDA: dim3(256) is (256, 1, 1).
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

// The scheduler sets these before it resumes a CUDA thread. A fiber never leaves the OS thread
// that runs its block, so a thread_local holds exactly the running CUDA thread's values.
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{};
inline thread_local dim3 gridDim{};
inline constexpr int warpSize = 32;
