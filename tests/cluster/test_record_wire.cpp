// Records as bytes between ranks: every double's bits survive (NaN payloads aside, NaN stays NaN;
// -0, infinities and subnormals exactly), names and empty series too; cut bytes are an error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "scalinglab/cluster/record_wire.hpp"

using namespace scalinglab;

namespace {
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

TEST(RecordWire, RoundTripsEveryBit) {
  Record r;
  r.set("error", 0.1 + 0.2);
  r.set("neg_zero", -0.0);
  r.set("inf", -std::numeric_limits<double>::infinity());
  r.set("nan", std::numeric_limits<double>::quiet_NaN());
  r.set("tiny", std::numeric_limits<double>::denorm_min());
  r.set("", 1.0);
  r.set_series("empty", {});
  std::vector<double> curve(1000);
  for (std::size_t k = 0; k < curve.size(); ++k) curve[k] = std::exp(-0.01 * static_cast<double>(k)) / 3;
  r.set_series("curve", curve);
  std::string bytes = "prefix";
  append_record(r, bytes);
  std::size_t at = 6;
  const Record back = read_record(bytes, at);
  EXPECT_EQ(at, bytes.size());
  ASSERT_EQ(back.scalars.size(), r.scalars.size());
  for (std::size_t k = 0; k < r.scalars.size(); ++k) {
    EXPECT_EQ(back.scalars[k].first, r.scalars[k].first);
    EXPECT_TRUE(same_bits(back.scalars[k].second, r.scalars[k].second)) << r.scalars[k].first;
  }
  ASSERT_EQ(back.series.size(), 2u);
  EXPECT_TRUE(back.series[0].second.empty());
  ASSERT_EQ(back.series[1].second.size(), curve.size());
  for (std::size_t k = 0; k < curve.size(); ++k) ASSERT_TRUE(same_bits(back.series[1].second[k], curve[k]));
}

TEST(RecordWire, CutBytesAreAnError) {
  Record r;
  r.set("a", 1);
  r.set_series("s", {1, 2, 3});
  std::string bytes;
  append_record(r, bytes);
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    std::size_t at = 0;
    EXPECT_THROW(read_record(bytes.substr(0, cut), at), std::runtime_error) << "cut at " << cut;
  }
}
