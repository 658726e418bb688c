#include "scalinglab/core/random.hpp"

#include <algorithm>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/state_blob.hpp"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace scalinglab {

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  constexpr uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(M0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(M1) * c[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    k[0] += W0;
    k[1] += W1;
  }
  return c;
}

uint64_t stable_hash(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 0x100000001B3ULL;
  }
  return mix64(h);
}

#if defined(__AVX512F__)
namespace {
inline void mulhilo16(__m512i a, __m512i m, __m512i& hi, __m512i& lo) {
  const __m512i even = _mm512_mul_epu32(a, m);
  const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
  lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}
}  // namespace
#endif
#if defined(__AVX2__)
namespace {
// 32 x 32 -> 64-bit products of the 8 lanes of a by m: returns (hi, lo) 32-bit halves per lane.
inline void mulhilo8(__m256i a, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(a, m);                         // lanes 0, 2, 4, 6
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);  // lanes 1, 3, 5, 7
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}
}  // namespace
#endif

void Stream::save(BlobWriter& w) const {
  w.u64(key_);
  w.u64(counter_);
  w.bytes(buf_.data(), sizeof buf_);
  w.u64(static_cast<uint64_t>(pos_));
  w.u64(has_spare_ ? 1 : 0);
  w.f64(spare_);
}

void Stream::restore(BlobReader& r) {
  key_ = r.u64();
  counter_ = r.u64();
  r.bytes(buf_.data(), sizeof buf_);
  const uint64_t pos = r.u64();
  if (pos > static_cast<uint64_t>(kBuffer)) throw InputError("a checkpoint's random stream is damaged");
  pos_ = static_cast<int>(pos);
  has_spare_ = r.u64() != 0;
  spare_ = r.f64();
}

void Stream::refill() {
  // Structure-of-arrays Philox4x32-10 over kBlocks consecutive counters (same maths as philox4x32,
  // checked against it by the tests); AVX-512 / AVX2 compute 16 / 8 blocks per instruction.
  constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  constexpr uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  alignas(64) uint32_t c0[kBlocks], c1[kBlocks], c2[kBlocks], c3[kBlocks];
  for (int j = 0; j < kBlocks; ++j) {
    const uint64_t ctr = counter_ + static_cast<uint64_t>(j);
    c0[j] = static_cast<uint32_t>(ctr);
    c1[j] = static_cast<uint32_t>(ctr >> 32);
    c2[j] = 0;
    c3[j] = 0;
  }
  uint32_t k0 = static_cast<uint32_t>(key_), k1 = static_cast<uint32_t>(key_ >> 32);
#if defined(__AVX512F__)
  static_assert(kBlocks % 16 == 0);
  for (int v = 0; v < kBlocks; v += 16) {
    __m512i x0 = _mm512_load_si512(c0 + v), x1 = _mm512_load_si512(c1 + v);
    __m512i x2 = _mm512_load_si512(c2 + v), x3 = _mm512_load_si512(c3 + v);
    const __m512i m0 = _mm512_set1_epi64(M0), m1 = _mm512_set1_epi64(M1);
    uint32_t a = k0, b = k1;
    for (int round = 0; round < 10; ++round) {
      __m512i hi0, lo0, hi1, lo1;
      mulhilo16(x0, m0, hi0, lo0);
      mulhilo16(x2, m1, hi1, lo1);
      const __m512i ka = _mm512_set1_epi32(static_cast<int>(a)), kb = _mm512_set1_epi32(static_cast<int>(b));
      x0 = _mm512_xor_si512(_mm512_xor_si512(hi1, x1), ka);
      x1 = lo1;
      x2 = _mm512_xor_si512(_mm512_xor_si512(hi0, x3), kb);
      x3 = lo0;
      a += W0;
      b += W1;
    }
    _mm512_store_si512(c0 + v, x0);
    _mm512_store_si512(c1 + v, x1);
    _mm512_store_si512(c2 + v, x2);
    _mm512_store_si512(c3 + v, x3);
  }
#elif defined(__AVX2__)
  static_assert(kBlocks % 8 == 0);
  for (int v = 0; v < kBlocks; v += 8) {
    __m256i x0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(c0 + v));
    __m256i x1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(c1 + v));
    __m256i x2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(c2 + v));
    __m256i x3 = _mm256_load_si256(reinterpret_cast<const __m256i*>(c3 + v));
    const __m256i m0 = _mm256_set1_epi64x(M0), m1 = _mm256_set1_epi64x(M1);
    uint32_t a = k0, b = k1;
    for (int round = 0; round < 10; ++round) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo8(x0, m0, hi0, lo0);
      mulhilo8(x2, m1, hi1, lo1);
      const __m256i ka = _mm256_set1_epi32(static_cast<int>(a)), kb = _mm256_set1_epi32(static_cast<int>(b));
      x0 = _mm256_xor_si256(_mm256_xor_si256(hi1, x1), ka);
      x1 = lo1;
      x2 = _mm256_xor_si256(_mm256_xor_si256(hi0, x3), kb);
      x3 = lo0;
      a += W0;
      b += W1;
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(c0 + v), x0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(c1 + v), x1);
    _mm256_store_si256(reinterpret_cast<__m256i*>(c2 + v), x2);
    _mm256_store_si256(reinterpret_cast<__m256i*>(c3 + v), x3);
  }
#else
  for (int round = 0; round < 10; ++round) {
    for (int j = 0; j < kBlocks; ++j) {
      const uint64_t p0 = static_cast<uint64_t>(M0) * c0[j];
      const uint64_t p1 = static_cast<uint64_t>(M1) * c2[j];
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[j] ^ k0;
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[j] ^ k1;
      c1[j] = static_cast<uint32_t>(p1);
      c3[j] = static_cast<uint32_t>(p0);
      c0[j] = n0;
      c2[j] = n2;
    }
    k0 += W0;
    k1 += W1;
  }
#endif
  for (int j = 0; j < kBlocks; ++j) {
    buf_[4 * j] = c0[j];
    buf_[4 * j + 1] = c1[j];
    buf_[4 * j + 2] = c2[j];
    buf_[4 * j + 3] = c3[j];
  }
  counter_ += kBlocks;
  pos_ = 0;
}

uint64_t Stream::below(uint64_t n) {
  // Lemire (2019), "Fast random integer generation in an interval", with rejection.
  __uint128_t m = static_cast<__uint128_t>(next_u64()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<__uint128_t>(next_u64()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Stream::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double r = std::sqrt(-2.0 * std::log(uniform_pos()));
  const double theta = 2.0 * M_PI * uniform();
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

namespace {
// Ziggurat for the standard normal (Marsaglia & Tsang 2000, in the form of Doornik 2005, "An
// improved ziggurat method to generate normal random samples"): 256 strips of equal area; one
// 32-bit word gives the strip (low 8 bits) and a signed uniform (high 24 bits), so ~99% of draws
// cost one word and one multiply. Independent bits for strip and value avoid the correlation
// Doornik found in the original.
struct Ziggurat {
  static constexpr int kStrips = 256;
  static constexpr double kR = 3.6541528853610088;   // start of the tail
  static constexpr double kV = 4.92867323399e-3;     // area of each strip
  double x[kStrips + 1];
  float xf[kStrips + 1];
  float ratio[kStrips];  // x[i+1] / x[i]: inside this the point is under the curve for sure
  Ziggurat() {
    const double f = std::exp(-0.5 * kR * kR);
    x[0] = kV / f;
    x[1] = kR;
    for (int i = 2; i < kStrips; ++i) x[i] = std::sqrt(-2.0 * std::log(kV / x[i - 1] + std::exp(-0.5 * x[i - 1] * x[i - 1])));
    x[kStrips] = 0.0;
    for (int i = 0; i <= kStrips; ++i) xf[i] = static_cast<float>(x[i]);
    for (int i = 0; i < kStrips; ++i) ratio[i] = static_cast<float>(x[i + 1] / x[i]);
  }
};
const Ziggurat& ziggurat() {
  static const Ziggurat z;
  return z;
}

float ziggurat_slow(Stream& s, const Ziggurat& z, int i, float u) {
  for (;;) {
    if (i == 0) {  // tail beyond r (Marsaglia 1964)
      double a, b;
      do {
        a = -std::log(s.uniform_pos()) / Ziggurat::kR;
        b = -std::log(s.uniform_pos());
      } while (2.0 * b < a * a);
      return static_cast<float>(u < 0 ? -(Ziggurat::kR + a) : Ziggurat::kR + a);
    }
    const double xv = static_cast<double>(u) * z.x[i];
    const double f0 = std::exp(-0.5 * (z.x[i] * z.x[i] - xv * xv));
    const double f1 = std::exp(-0.5 * (z.x[i + 1] * z.x[i + 1] - xv * xv));
    if (f1 + s.uniform() * (f0 - f1) < 1.0) return static_cast<float>(xv);
    // Rejected: draw a fresh (strip, value) pair.
    const uint32_t w = s.next_u32();
    i = static_cast<int>(w & 0xFF);
    u = static_cast<float>(static_cast<int32_t>(w & 0xFFFFFF00u)) * 0x1.0p-31f;
    if (std::fabs(u) < z.ratio[i]) return u * z.xf[i];
  }
}
}  // namespace

void Stream::fill_normal(float* out, std::size_t n, float scale) {
  const Ziggurat& z = ziggurat();
  for (std::size_t k = 0; k < n; ++k) {
    const uint32_t w = next_u32();
    const int i = static_cast<int>(w & 0xFF);
    const float u = static_cast<float>(static_cast<int32_t>(w & 0xFFFFFF00u)) * 0x1.0p-31f;  // [-1, 1)
    const float v = std::fabs(u) < z.ratio[i] ? u * z.xf[i] : ziggurat_slow(*this, z, i, u);
    out[k] = v * scale;
  }
}
void Stream::fill_normal(double* out, std::size_t n, double scale) {
  // The ziggurat in float (24-bit values), widened: ample for random initialisations, and ~10x
  // faster than Box-Muller in double.
  float buf[256];
  for (std::size_t k = 0; k < n; k += 256) {
    const std::size_t m = std::min<std::size_t>(256, n - k);
    fill_normal(buf, m, 1.0f);
    for (std::size_t i = 0; i < m; ++i) out[k + i] = static_cast<double>(buf[i]) * scale;
  }
}

}  // namespace scalinglab
