#include "scalinglab/memory/infinite_memory.hpp"

#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>

namespace scalinglab::memory {

double infinite_memory_error(const std::vector<double>& p, double T) {
  if (std::isinf(T)) return 0.0;
  double e = 0;
  for (std::size_t x = p.size(); x-- > 0;) e += p[x] * std::exp(T * std::log1p(-p[x]));
  return e;
}

double infinite_memory_asymptote(std::size_t N, double alpha, double T) {
  if (!(alpha > 1)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(T)) return 0.0;
  double H = 0;
  for (std::size_t x = N; x >= 1; --x) H += std::pow(static_cast<double>(x), -alpha);
  return std::pow(1.0 / H, 1.0 / alpha) * boost::math::tgamma(1.0 - 1.0 / alpha) / alpha * std::pow(T, -(1.0 - 1.0 / alpha));
}

}  // namespace scalinglab::memory
