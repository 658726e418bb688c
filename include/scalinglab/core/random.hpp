#pragma once
// Counter-based random streams (Philox4x32-10, Salmon et al. 2011, "Parallel random numbers: as easy
// as 1, 2, 3"). A stream is identified by a 64-bit key; its i-th block of four 32-bit words is a pure
// function of (key, i). Tasks derive their key from (sweep seed, grid point, run index), so results
// do not depend on the number of threads, the order of tasks or how a sweep is sharded.
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace scalinglab {

class BlobWriter;
class BlobReader;

// Philox4x32-10 block function: 4 words of output for a 128-bit counter and a 64-bit key.
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// 64-bit mixing (SplitMix64 finaliser); used to derive stream keys.
inline uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// FNV-1a hash of a string, then mixed: stable across platforms and runs (std::hash is not).
uint64_t stable_hash(std::string_view s);

// Key for task (seed, point, run): `point` is a stable hash of the grid point's parameters.
inline uint64_t stream_key(uint64_t seed, uint64_t point, uint64_t run) {
  return mix64(mix64(mix64(seed) ^ point) ^ (run * 0xD1B54A32D192ED03ULL + 1));
}

// A sequential reader over one Philox stream. Cheap to copy; `substream(i)` gives independent
// streams for sub-tasks (e.g. one per embedding matrix) without consuming this one.
class Stream {
 public:
  explicit Stream(uint64_t key = 0) : key_(key) {}

  uint64_t key() const { return key_; }
  Stream substream(uint64_t i) const { return Stream(mix64(key_ ^ mix64(i + 0x5851F42D4C957F2DULL))); }

  uint32_t next_u32() {
    if (pos_ == kBuffer) refill();
    return buf_[pos_++];
  }
  uint64_t next_u64() {
    uint64_t hi = next_u32();
    return (hi << 32) | next_u32();
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe under log().
  double uniform_pos() { return (static_cast<double>(next_u64() >> 11) + 1.0) * 0x1.0p-53; }
  // Uniform integer in [0, n) without modulo bias (Lemire's method).
  uint64_t below(uint64_t n);
  // Standard normal (Box-Muller; the second variate is cached).
  double normal();
  // Fill `out[0..n)` with standard normals times `scale` (float: embeddings are stored in float).
  void fill_normal(float* out, std::size_t n, float scale);
  void fill_normal(double* out, std::size_t n, double scale);

  // The whole position of the stream (key, counter, buffered words, the cached normal), for a
  // checkpoint: a restored stream draws exactly what this one would have drawn next.
  void save(BlobWriter& w) const;
  void restore(BlobReader& r);

 private:
  // Philox blocks are computed kBlocks at a time in a loop the compiler vectorises; the stream
  // is still the sequence of blocks for counters 0, 1, 2, ... (words in block order).
  static constexpr int kBlocks = 16, kBuffer = 4 * kBlocks;
  void refill();
  uint64_t key_;
  uint64_t counter_ = 0;
  std::array<uint32_t, kBuffer> buf_{};
  int pos_ = kBuffer;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace scalinglab
