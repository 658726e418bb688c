#include "scalinglab/core/random.hpp"

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

void Stream::refill() {
  const std::array<uint32_t, 4> ctr = {static_cast<uint32_t>(counter_),
                                       static_cast<uint32_t>(counter_ >> 32), 0u, 0u};
  buf_ = philox4x32(ctr, {static_cast<uint32_t>(key_), static_cast<uint32_t>(key_ >> 32)});
  ++counter_;
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
// Box-Muller from one Philox block: two normals from 32-bit uniforms. Float precision is ample
// for embeddings and keeps this loop cheap.
template <class T>
void fill_normal_impl(Stream& s, T* out, std::size_t n, T scale) {
  constexpr float two_pi = 6.28318530717958647692f;
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) {
    const float u1 = (static_cast<float>(s.next_u32() >> 8) + 1.0f) * 0x1.0p-24f;  // (0, 1]
    const float u2 = static_cast<float>(s.next_u32() >> 8) * 0x1.0p-24f;          // [0, 1)
    const float r = std::sqrt(-2.0f * std::log(u1));
    const float th = two_pi * u2;
    out[i] = static_cast<T>(r * std::cos(th)) * scale;
    out[i + 1] = static_cast<T>(r * std::sin(th)) * scale;
  }
  if (i < n) out[i] = static_cast<T>(s.normal()) * scale;
}
}  // namespace

void Stream::fill_normal(float* out, std::size_t n, float scale) { fill_normal_impl(*this, out, n, scale); }
void Stream::fill_normal(double* out, std::size_t n, double scale) {
  for (std::size_t i = 0; i < n; ++i) out[i] = normal() * scale;
}

}  // namespace scalinglab
