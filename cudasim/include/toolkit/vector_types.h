// <vector_types.h> for g++ builds: every vector type of CUDA 13.0's vector_types.h, with
// CUDA's sizes and alignments (so that one load moves a whole float4 or uchar4, and a struct
// of them has the layout nvcc gives it), the make_* functions, uint3 and dim3.
#pragma once
#if !defined(__VECTOR_TYPES_H__)
#define __VECTOR_TYPES_H__

// CUDASIM_VECTORn(type, element, alignment): struct type { element x, ...; } and make_type().
#define CUDASIM_VECTOR1(T, E, A) \
  struct alignas(A) T {          \
    E x;                         \
  };                             \
  constexpr T make_##T(E x) { return {x}; }
#define CUDASIM_VECTOR2(T, E, A) \
  struct alignas(A) T {          \
    E x, y;                      \
  };                             \
  constexpr T make_##T(E x, E y) { return {x, y}; }
#define CUDASIM_VECTOR3(T, E, A) \
  struct alignas(A) T {          \
    E x, y, z;                   \
  };                             \
  constexpr T make_##T(E x, E y, E z) { return {x, y, z}; }
#define CUDASIM_VECTOR4(T, E, A) \
  struct alignas(A) T {          \
    E x, y, z, w;                \
  };                             \
  constexpr T make_##T(E x, E y, E z, E w) { return {x, y, z, w}; }

// Types of 1 and 3 elements have their element's alignment; 2 and 4 that of the whole
// vector (at most 16 bytes), as in CUDA.
CUDASIM_VECTOR1(char1, signed char, 1)
CUDASIM_VECTOR2(char2, signed char, 2)
CUDASIM_VECTOR3(char3, signed char, 1)
CUDASIM_VECTOR4(char4, signed char, 4)
CUDASIM_VECTOR1(uchar1, unsigned char, 1)
CUDASIM_VECTOR2(uchar2, unsigned char, 2)
CUDASIM_VECTOR3(uchar3, unsigned char, 1)
CUDASIM_VECTOR4(uchar4, unsigned char, 4)
CUDASIM_VECTOR1(short1, short, 2)
CUDASIM_VECTOR2(short2, short, 4)
CUDASIM_VECTOR3(short3, short, 2)
CUDASIM_VECTOR4(short4, short, 8)
CUDASIM_VECTOR1(ushort1, unsigned short, 2)
CUDASIM_VECTOR2(ushort2, unsigned short, 4)
CUDASIM_VECTOR3(ushort3, unsigned short, 2)
CUDASIM_VECTOR4(ushort4, unsigned short, 8)
CUDASIM_VECTOR1(int1, int, 4)
CUDASIM_VECTOR2(int2, int, 8)
CUDASIM_VECTOR3(int3, int, 4)
CUDASIM_VECTOR4(int4, int, 16)
CUDASIM_VECTOR1(uint1, unsigned, 4)
CUDASIM_VECTOR2(uint2, unsigned, 8)
CUDASIM_VECTOR3(uint3, unsigned, 4)
CUDASIM_VECTOR4(uint4, unsigned, 16)
CUDASIM_VECTOR1(long1, long, alignof(long))
CUDASIM_VECTOR2(long2, long, 2 * sizeof(long))
CUDASIM_VECTOR3(long3, long, alignof(long))
CUDASIM_VECTOR4(long4, long, 16)
CUDASIM_VECTOR4(long4_16a, long, 16)
CUDASIM_VECTOR4(long4_32a, long, 32)
CUDASIM_VECTOR1(ulong1, unsigned long, alignof(long))
CUDASIM_VECTOR2(ulong2, unsigned long, 2 * sizeof(long))
CUDASIM_VECTOR3(ulong3, unsigned long, alignof(long))
CUDASIM_VECTOR4(ulong4, unsigned long, 16)
CUDASIM_VECTOR4(ulong4_16a, unsigned long, 16)
CUDASIM_VECTOR4(ulong4_32a, unsigned long, 32)
CUDASIM_VECTOR1(longlong1, long long, 8)
CUDASIM_VECTOR2(longlong2, long long, 16)
CUDASIM_VECTOR3(longlong3, long long, 8)
CUDASIM_VECTOR4(longlong4, long long, 16)
CUDASIM_VECTOR4(longlong4_16a, long long, 16)
CUDASIM_VECTOR4(longlong4_32a, long long, 32)
CUDASIM_VECTOR1(ulonglong1, unsigned long long, 8)
CUDASIM_VECTOR2(ulonglong2, unsigned long long, 16)
CUDASIM_VECTOR3(ulonglong3, unsigned long long, 8)
CUDASIM_VECTOR4(ulonglong4, unsigned long long, 16)
CUDASIM_VECTOR4(ulonglong4_16a, unsigned long long, 16)
CUDASIM_VECTOR4(ulonglong4_32a, unsigned long long, 32)
CUDASIM_VECTOR1(float1, float, 4)
CUDASIM_VECTOR2(float2, float, 8)
CUDASIM_VECTOR3(float3, float, 4)
CUDASIM_VECTOR4(float4, float, 16)
CUDASIM_VECTOR1(double1, double, 8)
CUDASIM_VECTOR2(double2, double, 16)
CUDASIM_VECTOR3(double3, double, 8)
CUDASIM_VECTOR4(double4, double, 16)
CUDASIM_VECTOR4(double4_16a, double, 16)
CUDASIM_VECTOR4(double4_32a, double, 32)
#undef CUDASIM_VECTOR1
#undef CUDASIM_VECTOR2
#undef CUDASIM_VECTOR3
#undef CUDASIM_VECTOR4

/// Grid and block sizes. Missing dimensions are 1, as in CUDA: dim3(256) is (256, 1, 1).
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

#endif  // __VECTOR_TYPES_H__
