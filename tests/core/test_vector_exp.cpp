#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "scalinglab/core/vector_exp.hpp"

using namespace scalinglab;

namespace {
// Floats mapped to integers in the order of their values, so that ulp distance is a difference.
std::int64_t vexp_ordered(float f) {
  const auto b = std::bit_cast<std::int32_t>(f);
  return b < 0 ? -static_cast<std::int64_t>(b & 0x7fffffff) : b;
}
double vexp_ulp(float a, float b) { return std::fabs(static_cast<double>(vexp_ordered(a) - vexp_ordered(b))); }

// exp_lanes<L> over n values (n a multiple of L).
template <int L>
void vexp_apply(const float* in, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; i += L) {
    VecF<L> v;
    std::memcpy(&v, in + i, sizeof v);
    v = exp_lanes<L>(v);
    std::memcpy(out + i, &v, sizeof v);
  }
}

float vexp_one(float x) { return exp_lanes<1>(x); }
bool vexp_same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }
}  // namespace

// Every 509th float bit pattern with a normal result (4.4 million inputs), against the float
// nearest std::exp in double (29 spare bits make double rounding negligible). Also checks that every
// width gives the bits of L = 1.
TEST(VectorExp, WithinBoundOfCorrectlyRoundedAtEveryWidth) {
  constexpr std::uint32_t kStride = 509;
  constexpr std::size_t kChunk = 4096;
  const std::uint32_t pos_end = std::bit_cast<std::uint32_t>(88.72283f);
  const std::uint32_t neg_end = std::bit_cast<std::uint32_t>(-87.33654f);
  std::vector<float> in, ref, out[4];
  in.reserve(kChunk);
  double max_ulp[4] = {0, 0, 0, 0};
  std::size_t count = 0, differ_from_scalar = 0;
  auto check_chunk = [&] {
    in.resize((in.size() + 15) / 16 * 16, 0.0f);  // whole blocks of 16
    ref.resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) ref[i] = static_cast<float>(std::exp(static_cast<double>(in[i])));
    for (auto& o : out) o.resize(in.size());
    vexp_apply<1>(in.data(), out[0].data(), in.size());
    vexp_apply<4>(in.data(), out[1].data(), in.size());
    vexp_apply<8>(in.data(), out[2].data(), in.size());
    vexp_apply<16>(in.data(), out[3].data(), in.size());
    for (int k = 0; k < 4; ++k)
      for (std::size_t i = 0; i < in.size(); ++i) {
        max_ulp[k] = std::max(max_ulp[k], vexp_ulp(out[k][i], ref[i]));
        differ_from_scalar += !vexp_same_bits(out[k][i], out[0][i]);
      }
    count += in.size();
    in.clear();
  };
  for (std::uint32_t b = 0; b <= pos_end; b += kStride) {
    in.push_back(std::bit_cast<float>(b));
    if (in.size() == kChunk) check_chunk();
  }
  for (std::uint32_t b = 0x80000000u; b <= neg_end; b += kStride) {
    in.push_back(std::bit_cast<float>(b));
    if (in.size() == kChunk) check_chunk();
  }
  check_chunk();
  EXPECT_GT(count, 4000000u);
  EXPECT_EQ(differ_from_scalar, 0u);
  const int lanes[4] = {1, 4, 8, 16};
  for (int k = 0; k < 4; ++k) {
    EXPECT_LE(max_ulp[k], kExpMaxUlp) << "L = " << lanes[k];
    RecordProperty("max_ulp_L" + std::to_string(lanes[k]), std::to_string(max_ulp[k]));
    std::cout << "exp_lanes<" << lanes[k] << ">: max " << max_ulp[k] << " ulp over " << count << " inputs\n";
  }
  std::cout << "exp_inplace runs " << kExpLanes << " lanes (" << exp_instruction_set() << ")\n";
}

TEST(VectorExp, InstructionSetNamesTheLaneCount) {
  const std::string name = exp_instruction_set();
  EXPECT_EQ(name, kExpLanes == 16 ? "AVX-512" : kExpLanes == 8 ? "AVX2" : kExpLanes == 4 ? "SSE2" : "scalar");
}

TEST(VectorExp, EdgesAreDefined) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(vexp_one(inf), inf);
  EXPECT_TRUE(vexp_same_bits(vexp_one(-inf), 0.0f));
  EXPECT_TRUE(std::isnan(vexp_one(nan)));
  EXPECT_TRUE(std::isnan(vexp_one(-nan)));
  EXPECT_TRUE(std::isnan(vexp_one(std::numeric_limits<float>::signaling_NaN())));
  EXPECT_EQ(vexp_one(88.8f), inf);
  EXPECT_EQ(vexp_one(1e30f), inf);
  EXPECT_EQ(vexp_one(std::numeric_limits<float>::max()), inf);
  for (float x : {-88.0f, -100.0f, -1e30f, -std::numeric_limits<float>::max()})
    EXPECT_TRUE(vexp_same_bits(vexp_one(x), 0.0f)) << x;
  // The thresholds: the last finite and the first infinite result, the smallest normal and zero.
  EXPECT_TRUE(std::isfinite(vexp_one(88.72283f)));
  EXPECT_LE(vexp_ulp(vexp_one(88.72283f), static_cast<float>(std::exp(static_cast<double>(88.72283f)))), kExpMaxUlp);
  EXPECT_EQ(vexp_one(std::nextafter(88.72283f, inf)), inf);
  EXPECT_GE(vexp_one(-87.33654f), std::numeric_limits<float>::min());
  EXPECT_EQ(vexp_one(std::nextafter(-87.33654f, -inf)), 0.0f);
  // Zero gives exactly 1; tiny values the correctly rounded result (1 below 2^-25, then 1 -+ ulps).
  EXPECT_EQ(vexp_one(0.0f), 1.0f);
  EXPECT_EQ(vexp_one(-0.0f), 1.0f);
  for (float x : {1e-40f, -1e-40f, 1e-30f, -1e-30f, 1e-10f, -1e-10f, 2.9e-8f, -2.9e-8f, 1e-7f, -1e-7f, 1e-5f, -1e-5f})
    EXPECT_EQ(vexp_one(x), static_cast<float>(std::exp(static_cast<double>(x)))) << x;
  EXPECT_EQ(vexp_one(1e-30f), 1.0f);
  EXPECT_EQ(vexp_one(1e-7f), std::nextafter(1.0f, 2.0f));
  // Every width gives the same bits at the edges, in whichever lane they fall.
  const float edges[16] = {inf,    -inf,      nan,        88.8f, -88.0f, -100.0f, -1e30f, 0.0f,
                           1e-40f, 88.72283f, -87.33654f, 1.0f,  -1.0f,  1e-7f,   42.0f,  -42.0f};
  float out4[16], out8[16], out16[16];
  vexp_apply<4>(edges, out4, 16);
  vexp_apply<8>(edges, out8, 16);
  vexp_apply<16>(edges, out16, 16);
  for (int i = 0; i < 16; ++i) {
    const float want = vexp_one(edges[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(out4[i]) && std::isnan(out8[i]) && std::isnan(out16[i])) << i;
    } else {
      EXPECT_TRUE(vexp_same_bits(out4[i], want) && vexp_same_bits(out8[i], want) && vexp_same_bits(out16[i], want))
          << edges[i];
    }
  }
}

// The vector body and the scalar tail give the same bits, so a value does not depend on its place.
TEST(VectorExp, InplaceMatchesScalarAtEveryLengthAndOffset) {
  std::vector<float> buf(4096 + 13 + 1);
  for (std::size_t n : {0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 4096 + 13}) {
    for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = 20.0f * std::sin(0.37f * static_cast<float>(i)) - 5.0f;
    const std::vector<float> before = buf;
    exp_inplace(buf.data() + 1, n);  // unaligned
    for (std::size_t i = 0; i < buf.size(); ++i) {
      const bool inside = i >= 1 && i <= n;
      ASSERT_TRUE(vexp_same_bits(buf[i], inside ? vexp_one(before[i]) : before[i])) << "n = " << n << ", i = " << i;
    }
  }
}

TEST(VectorExp, ShiftSumWritesExpAndSumsInDouble) {
  for (std::size_t n : {0, 1, 7, 33, 4096}) {
    std::vector<float> z(n + 1);
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = 12.0f * std::cos(1.3f * static_cast<float>(i)) - 3.0f;
    const std::vector<float> before = z;
    float shift = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 1; i <= n; ++i) shift = std::max(shift, z[i]);
    if (n == 0) shift = 0;
    const double sum = exp_shift_sum(z.data() + 1, n, shift);
    double want = 0;
    for (std::size_t i = 1; i <= n; ++i) {
      ASSERT_TRUE(vexp_same_bits(z[i], vexp_one(before[i] - shift))) << "n = " << n << ", i = " << i;
      want += z[i];
    }
    EXPECT_TRUE(vexp_same_bits(z[0], before[0]));  // nothing written outside
    if (n == 0) {
      EXPECT_EQ(sum, 0.0);
    } else {
      EXPECT_GE(sum, 1.0);  // the max's own term is 1
      EXPECT_NEAR(sum, want, 1e-12 * want) << "n = " << n;
    }
    // Deterministic: the same input gives the same bits.
    std::vector<float> again = before;
    EXPECT_EQ(exp_shift_sum(again.data() + 1, n, shift), sum);
  }
}

TEST(VectorExp, FloatShiftSumWritesTheSameValuesAndSumsToFloatRounding) {
  for (std::size_t n : {1, 7, 33, 4096}) {
    std::vector<float> z(n), w;
    for (std::size_t i = 0; i < n; ++i) z[i] = 9.0f * std::sin(0.7f * static_cast<float>(i));
    w = z;
    const float shift = *std::max_element(z.begin(), z.end());
    const double exact = exp_shift_sum(z.data(), n, shift);
    const float fast = exp_shift_sum_float(w.data(), n, shift);
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(vexp_same_bits(z[i], w[i])) << i;
    // n / L sequential float additions per lane: at most that many roundings of 2^-24 each.
    const double bound = (static_cast<double>(n) / kExpLanes + kExpLanes) * 0x1p-24;
    EXPECT_NEAR(fast, exact, bound * exact) << "n = " << n;
  }
}
