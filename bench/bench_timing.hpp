#pragma once
// Timing helpers shared by the benchmarks: wall-clock seconds and medians of repetitions.
#include <algorithm>
#include <chrono>
#include <vector>

namespace scalinglab::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace scalinglab::bench
