#include "scalinglab/factor/adam.hpp"

#include <algorithm>
#include <cmath>

#include "scalinglab/core/denormals.hpp"
#include "scalinglab/core/parallel.hpp"

namespace scalinglab::factor {

void Adam::step(float* theta, const float* g, std::size_t begin, std::size_t end, double lr, int threads) {
  ++t;
  const double c1 = 1 - std::pow(beta1, static_cast<double>(t)), c2 = 1 - std::pow(beta2, static_cast<double>(t));
  // The coefficients PyTorch passes as Python floats (1 - beta computed in double, then rounded).
  const float b1 = static_cast<float>(beta1), b2 = static_cast<float>(beta2), e = static_cast<float>(eps);
  const float a1 = static_cast<float>(1 - beta1), a2 = static_cast<float>(1 - beta2);
  const float step_size = static_cast<float>(lr / c1), c2_sqrt = static_cast<float>(std::sqrt(c2));
  constexpr std::size_t kBlock = 1 << 15;
  const std::size_t n = end > begin ? end - begin : 0;
  parallel_for((n + kBlock - 1) / kBlock, threads, [&](std::size_t blk, int) {
    const FlushDenormals ftz;
    const std::size_t lo = begin + blk * kBlock, hi = std::min(end, lo + kBlock);
    for (std::size_t k = lo; k < hi; ++k) {
      m[k] = m[k] * b1 + g[k] * a1;
      v[k] = v[k] * b2 + g[k] * g[k] * a2;
      theta[k] -= step_size * m[k] / (std::sqrt(v[k]) / c2_sqrt + e);
    }
  });
}

}  // namespace scalinglab::factor
