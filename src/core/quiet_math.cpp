#include "scalinglab/core/quiet_math.hpp"

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/zeta.hpp>
#include <cmath>
#include <limits>

namespace scalinglab {

namespace {
namespace bmp = boost::math::policies;
using QuietMath = bmp::policy<bmp::domain_error<bmp::ignore_error>, bmp::pole_error<bmp::ignore_error>,
                              bmp::overflow_error<bmp::ignore_error>, bmp::underflow_error<bmp::ignore_error>,
                              bmp::evaluation_error<bmp::ignore_error>, bmp::rounding_error<bmp::ignore_error>>;
}  // namespace

double quiet_tgamma(double x) { return boost::math::tgamma(x, QuietMath()); }
double quiet_digamma(double x) { return boost::math::digamma(x, QuietMath()); }
double quiet_zeta(double s) {
  return s > 1 ? boost::math::zeta(s, QuietMath()) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace scalinglab
