#pragma once
// Timing helpers shared by the benchmarks: wall-clock seconds, medians of repetitions, and the
// same work run by several threads at once (how the lab runs a sweep: one task per core).
#include <algorithm>
#include <chrono>
#include <thread>
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

// Runs work(copy) in `copies` threads started together; returns each copy's wall-clock seconds.
// With copies = 1 it runs on the calling thread.
template <class Work>
std::vector<double> concurrent_seconds(int copies, Work work) {
  std::vector<double> seconds(static_cast<std::size_t>(copies));
  auto one = [&](int c) {
    const auto t0 = Clock::now();
    work(c);
    seconds[static_cast<std::size_t>(c)] = seconds_since(t0);
  };
  if (copies <= 1) {
    one(0);
    return seconds;
  }
  std::vector<std::thread> pool;
  for (int c = 0; c < copies; ++c) pool.emplace_back(one, c);
  for (auto& t : pool) t.join();
  return seconds;
}

}  // namespace scalinglab::bench
