#pragma once
// The world of Jeon & Van Roy's Corollary 4.2 as the extrapolation tests use it (deterministic,
// microseconds per point): the head of a world file, and the bound in closed form, written here
// from its formula rather than taken from the measure under test.
#include <cmath>

namespace scalinglab::testing {

// measure, [params] and [extrapolate]; a test appends its own [benchmark] table.
inline constexpr const char* kTeacherBoundHead = R"(measure = "teacher.bound"
seed = 1
[params]
d = 10
K = 100
[extrapolate]
size = "n"
data = "T"
N = "n*d"
D = "T/6"
loss = "corollary"
)";

// teacher.bound's corollary with d = 10, K = 100 at N = 10 n parameters and C = d n T:
// d K ln(1 + n/K)(ln(e 36 T K) + (2/d) ln(2n)) / (2T) + 3K/n.
inline double teacher_bound(double N, double C) {
  const double d = 10, K = 100, n = N / d, T = C / (d * n);
  return d * K * std::log(1 + n / K) * (std::log(std::exp(1.0) * 36 * T * K) + (2 / d) * std::log(2 * n)) / (2 * T) +
         3 * K / n;
}

}  // namespace scalinglab::testing
