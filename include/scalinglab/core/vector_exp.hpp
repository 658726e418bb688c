#pragma once
// Single-precision exp for softmax heads, written once with GCC vector extensions and instantiated
// at L = 1 (plain float), 4 (SSE2), 8 (AVX2) and 16 (AVX-512; GCC splits it into halves on narrower
// machines). Every L runs the same operations, so results are bit-identical across L: a value does
// not depend on its position in an array (vector body or scalar tail).
//
// Edges: x > 88.72283 -> +inf (the result would exceed FLT_MAX); x < -87.33654 -> 0 (the result
// would be below FLT_MIN: no denormals are produced, callers flush them anyway, core/denormals.hpp);
// NaN -> NaN; +inf -> +inf; -inf -> 0.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "scalinglab/core/simd.hpp"

namespace scalinglab {

template <int L>
using VecF = simd::Simd<float, L>;
template <int L>
using VecU = simd::Simd<std::uint32_t, L>;  // unsigned: bit arithmetic wraps
template <int L>
using VecD = simd::Simd<double, L>;

// The widest lane count this build vectorises. 8 needs AVX2, not only AVX: the exponent arithmetic
// is on 256-bit integers.
#if defined(__AVX512F__)
inline constexpr int kExpLanes = 16;
#elif defined(__AVX2__)
inline constexpr int kExpLanes = 8;
#elif defined(__SSE2__)
inline constexpr int kExpLanes = 4;
#else
inline constexpr int kExpLanes = 1;
#endif

inline const char* exp_instruction_set() {
  if constexpr (kExpLanes == 16) return "AVX-512";
  if constexpr (kExpLanes == 8) return "AVX2";
  if constexpr (kExpLanes == 4) return "SSE2";
  return "scalar";
}

// Bound on the error against the correctly rounded exp, in ulp of the float result, over the inputs
// with a normal result; tests/core/test_vector_exp.cpp checks it on every 509th float. Measured over
// all 2.2e9 such floats: max 1 ulp (0.8% of inputs off by 1) with FMA and without (SSE2 only).
inline constexpr double kExpMaxUlp = 1;

// e^x in every lane. x = n ln2 + r with n = round(x log2e), |r| <= ln2/2 (Cody-Waite: ln2 = hi + lo,
// hi with 9 significant bits so n * hi is exact); e^r by a polynomial; 2^n added to the exponent bits.
template <int L>
inline VecF<L> exp_lanes(VecF<L> x) {
  static_assert(L == 1 || L == 4 || L == 8 || L == 16);
  using F = VecF<L>;
  using U = VecU<L>;
  const F magic = F{} + 12582912.0f;             // 1.5 * 2^23: adding it rounds to an integer below 2^22
  const F t = x * 1.44269504088896341f + magic;  // n in the low mantissa bits of t
  const F n = t - magic;
  F r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  // e^r = 1 + r + r^2 P(r): Cephes expf coefficients (S. Moshier), rel. error ~1e-7 on |r| <= ln2/2.
  F p = F{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const F y = p * (r * r) + r + 1.0f;  // in [0.70, 1.42]: exponent field 126 or 127
  // n in [-126, 128] within the range kept below, so the exponent field stays in [1, 254].
  const U n_bits = (__builtin_bit_cast(U, t) - __builtin_bit_cast(U, magic)) << 23;
  F e = __builtin_bit_cast(F, __builtin_bit_cast(U, y) + n_bits);
  const F inf = F{} + std::numeric_limits<float>::infinity();
  e = x > 88.72283f ? inf : e;
  e = x < -87.33654f ? F{} : e;
  return x == x ? e : x + x;  // NaN (garbage exponent above) -> quiet NaN
}

namespace vector_exp_detail {
// z[i] = exp(z[i] - shift): whole blocks of L lanes, then the tail at L = 1. With Sum, returns the
// sum of the new values: per lane in double, lanes added in lane order, then the tail in order.
template <int L, bool Sum>
inline double exp_blocks(float* z, std::size_t n, float shift) {
  double sum = 0;
  std::size_t i = 0;
  if constexpr (L > 1) {
    VecD<L / 2> lo{}, hi{};  // per-lane sums of lanes [0, L/2) and [L/2, L): native registers
    for (const std::size_t whole = n - n % L; i < whole; i += L) {
      VecF<L> v;
      std::memcpy(&v, z + i, sizeof v);  // no alignment required
      v = exp_lanes<L>(v - shift);
      std::memcpy(z + i, &v, sizeof v);
      if constexpr (Sum)
        for (int l = 0; l < L / 2; ++l) {  // one vcvtps2pd each (GCC 12's __builtin_convertvector: 4)
          lo[l] += v[l];
          hi[l] += v[l + L / 2];
        }
    }
    for (int l = 0; l < L / 2; ++l) sum += lo[l];
    for (int l = 0; l < L / 2; ++l) sum += hi[l];
  }
  for (; i < n; ++i) {
    z[i] = exp_lanes<1>(z[i] - shift);
    if constexpr (Sum) sum += z[i];
  }
  return sum;
}
}  // namespace vector_exp_detail

// x[i] = exp(x[i]) at kExpLanes lanes (x - 0 == x for every float, and GCC drops the subtraction).
inline void exp_inplace(float* x, std::size_t n) { vector_exp_detail::exp_blocks<kExpLanes, false>(x, n, 0.0f); }

// z[i] = exp(z[i] - shift), returning their sum in double; deterministic for a given n and build.
// A softmax's numerator and denominator with shift = the row's max.
inline double exp_shift_sum(float* z, std::size_t n, float shift) {
  return vector_exp_detail::exp_blocks<kExpLanes, true>(z, n, shift);
}

// The same values, their sum in float lanes (one float sum per lane, lanes then added in order):
// about 1.6x faster, for a softmax's gradient, where the sum's float rounding is the gradient's own.
inline float exp_shift_sum_float(float* z, std::size_t n, float shift) {
  constexpr int L = kExpLanes;
  std::size_t i = 0;
  float sum = 0;
  if constexpr (L > 1) {
    VecF<L> acc{};
    for (const std::size_t whole = n - n % L; i < whole; i += L) {
      VecF<L> v;
      std::memcpy(&v, z + i, sizeof v);
      v = exp_lanes<L>(v - shift);
      std::memcpy(z + i, &v, sizeof v);
      acc += v;
    }
    for (int l = 0; l < L; ++l) sum += acc[l];
  }
  for (; i < n; ++i) sum += (z[i] = exp_lanes<1>(z[i] - shift));
  return sum;
}

}  // namespace scalinglab
