#pragma once
// Short vectors of L lanes of float or double for the hand-written kernels (GCC/Clang vector
// extensions: the compiler maps Simd<T, L> to the machine's registers, or splits it when L is
// wider than they are), and what those kernels need around them. L = 1 is the plain scalar, so a
// kernel written once serves its vector body and its scalar tail with the same operations.
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace scalinglab::simd {

template <typename T, int L>
struct SimdOf {
  typedef T type __attribute__((vector_size(sizeof(T) * L)));
};
template <typename T>
struct SimdOf<T, 1> {
  typedef T type;
};
template <typename T, int L>
using Simd = typename SimdOf<T, L>::type;

// Lanes of a full register of T in this build: 512-bit with AVX-512, 256-bit with AVX, else 128-bit.
#if defined(__AVX512F__)
inline constexpr int kRegisterBytes = 64, kRegisters = 32;
#elif defined(__AVX__)
inline constexpr int kRegisterBytes = 32, kRegisters = 16;
#else
inline constexpr int kRegisterBytes = 16, kRegisters = 16;
#endif
template <typename T>
inline constexpr int kLanes = kRegisterBytes / static_cast<int>(sizeof(T));

// The vector instruction set the kernels were compiled for (printed by the benches).
inline const char* instruction_set() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "AVX2+FMA";
#elif defined(__AVX__)
  return "AVX";
#elif defined(__SSE2__)
  return "SSE2";
#else
  return "scalar";
#endif
}

template <typename T, int L>
inline Simd<T, L> load(const T* p) {
  Simd<T, L> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T, int L>
inline void store(T* p, Simd<T, L> v) {
  std::memcpy(p, &v, sizeof v);
}

// x in every lane. The broadcast instruction where there is one: the generic Simd{} + x is not x
// for x = -0, so the compiler keeps a scalar addition next to every broadcast of an inner loop.
template <typename T, int L>
inline Simd<T, L> splat(T x) {
  if constexpr (L == 1) {
    return x;
  } else {
#if defined(__AVX512F__)
    if constexpr (L * sizeof(T) == 64) {
      if constexpr (sizeof(T) == 4) return _mm512_set1_ps(x);
      else return _mm512_set1_pd(x);
    }
#endif
#if defined(__AVX__)
    if constexpr (L * sizeof(T) == 32) {
      if constexpr (sizeof(T) == 4) return _mm256_set1_ps(x);
      else return _mm256_set1_pd(x);
    }
#endif
#if defined(__SSE2__)
    if constexpr (L * sizeof(T) == 16) {
      if constexpr (sizeof(T) == 4) return _mm_set1_ps(x);
      else return _mm_set1_pd(x);
    }
#endif
    return Simd<T, L>{} + x;
  }
}

// Lanes added in lane order: the same bits every time.
template <typename T, int L>
inline T lane_sum(Simd<T, L> v) {
  if constexpr (L == 1) {
    return v;
  } else {
    T s = v[0];
    for (int j = 1; j < L; ++j) s += v[j];
    return s;
  }
}

template <typename T, int L>
inline Simd<T, L> relu(Simd<T, L> h) {
  if constexpr (L == 1) return h > T(0) ? h : T(0);
  else return h > Simd<T, L>{} ? h : Simd<T, L>{};
}

// Correctly rounded square roots of the lanes (the instructions where there are some).
template <typename T, int L>
inline Simd<T, L> sqrt(Simd<T, L> x) {
  if constexpr (L == 1) {
    return std::sqrt(x);
  } else {
#if defined(__AVX512F__)
    if constexpr (L * sizeof(T) == 64) {
      if constexpr (sizeof(T) == 4) return _mm512_sqrt_ps(x);
      else return _mm512_sqrt_pd(x);
    }
#endif
#if defined(__AVX__)
    if constexpr (L * sizeof(T) == 32) {
      if constexpr (sizeof(T) == 4) return _mm256_sqrt_ps(x);
      else return _mm256_sqrt_pd(x);
    }
#endif
#if defined(__SSE2__)
    if constexpr (L * sizeof(T) == 16) {
      if constexpr (sizeof(T) == 4) return _mm_sqrt_ps(x);
      else return _mm_sqrt_pd(x);
    }
#endif
    Simd<T, L> r = x;
    for (int j = 0; j < L; ++j) r[j] = std::sqrt(x[j]);
    return r;
  }
}

}  // namespace scalinglab::simd
