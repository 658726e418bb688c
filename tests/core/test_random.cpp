#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "scalinglab/core/random.hpp"
#include "scalinglab/core/stats.hpp"

using namespace scalinglab;

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, KnownAnswers) {
  auto a = philox4x32({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(a[0], 0x6627e8d5u);
  EXPECT_EQ(a[1], 0xe169c58du);
  EXPECT_EQ(a[2], 0xbc57ac4cu);
  EXPECT_EQ(a[3], 0x9b00dbd8u);
  auto b = philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(b[0], 0x408f276du);
  EXPECT_EQ(b[1], 0x41c83b0eu);
  EXPECT_EQ(b[2], 0xa20bc7c6u);
  EXPECT_EQ(b[3], 0x6d5451fdu);
  auto c = philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(c[0], 0xd16cfe09u);
  EXPECT_EQ(c[1], 0x94fdccebu);
  EXPECT_EQ(c[2], 0x5001e420u);
  EXPECT_EQ(c[3], 0x24126ea1u);
}

TEST(Stream, SameKeySameNumbersDifferentKeyDifferent) {
  Stream a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    EXPECT_NE(x, c.next_u64());
  }
  EXPECT_NE(Stream(1).substream(0).next_u64(), Stream(1).substream(1).next_u64());
  EXPECT_NE(stream_key(1, 2, 3), stream_key(1, 2, 4));
  EXPECT_NE(stream_key(1, 2, 3), stream_key(2, 2, 3));
}

TEST(Stream, UniformAndNormalMoments) {
  Stream s(7);
  Summary u, n, n4;
  for (int i = 0; i < 200000; ++i) {
    u.add(s.uniform());
    const double z = s.normal();
    n.add(z);
    n4.add(z * z * z * z);
  }
  EXPECT_NEAR(u.mean, 0.5, 0.005);
  EXPECT_NEAR(u.std() * u.std(), 1.0 / 12, 0.002);
  EXPECT_NEAR(n.mean, 0.0, 0.01);
  EXPECT_NEAR(n.std(), 1.0, 0.01);
  EXPECT_NEAR(n4.mean, 3.0, 0.06);

  std::vector<float> buf(200001);
  s.fill_normal(buf.data(), buf.size(), 2.0f);
  Summary f;
  for (float v : buf) f.add(v);
  EXPECT_NEAR(f.mean, 0.0, 0.02);
  EXPECT_NEAR(f.std(), 2.0, 0.02);
}

TEST(Stream, BelowIsUniform) {
  Stream s(3);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 70000; ++i) ++hits[s.below(7)];
  for (int h : hits) EXPECT_NEAR(h, 10000, 400);
}

TEST(Stream, BufferedBlocksEqualTheScalarBlockFunction) {
  // The stream's vectorised refill must produce exactly philox4x32(counter i, key) for i = 0, 1, ...
  for (uint64_t key : {0ULL, 42ULL, 0xDEADBEEFCAFEF00DULL}) {
    Stream s(key);
    for (uint32_t block = 0; block < 100; ++block) {
      const auto expect = philox4x32({block, 0, 0, 0}, {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
      for (int w = 0; w < 4; ++w) ASSERT_EQ(s.next_u32(), expect[w]) << "key " << key << " block " << block;
    }
  }
}
