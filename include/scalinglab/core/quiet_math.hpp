// Special functions that answer NaN or infinity at a pole or past their range, as the arithmetic
// of formulas does, instead of throwing an exception whose text names Boost's function.
#pragma once

namespace scalinglab {

double quiet_tgamma(double x);
double quiet_digamma(double x);
double quiet_zeta(double s);  // s > 1; NaN otherwise

}  // namespace scalinglab
