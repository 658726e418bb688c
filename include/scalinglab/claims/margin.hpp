#pragma once
// The margin of a check's verdict: how far the data stand from the boundary between PASS and FAIL,
// in units a reader can weigh against chance. A check is a set of comparisons "lhs <= rhs" (a row
// of `below`, a pair of `ordered`, a row before a `reaches` threshold); each has a margin, and the
// check's margin is the worst of them (or, for "some row reaches", the best).
//
// Units, chosen once per check so that its comparisons share them:
//   sem      (rhs - lhs) / (standard error of that difference) when the values are means over runs:
//            a margin of 2 sem is a difference that equal means show by chance in 2% of comparisons
//   decades  log10(rhs / lhs) when nothing varies over runs (theory, exact sums) and both are > 0
//   abs      rhs - lhs otherwise (deterministic values of either sign)
// and, for the kinds that measure a slope (slope, optimum), the distance of the slope to its
// accepted range in units of the slope's standard error (sem) or of the slope itself ("slope").
#include <string>
#include <vector>

namespace scalinglab {

// One comparison lhs <= rhs. `se` is the standard error of rhs - lhs (0 when both are exact);
// `offset` is added in sem units (an allowance of k sem: +k; a required significance of k sem: -k).
struct Gap {
  double lhs = 0, rhs = 0, se = 0;
  double offset = 0;
};

struct Margin {
  double value = 0;
  std::string unit;  // "sem", "decades", "abs" (empty: no comparison)
};

// The unit a set of comparisons shares: sem when any has a standard error > 0, decades when all
// sides are > 0, abs otherwise.
std::string margin_unit(const std::vector<Gap>& gaps);

// The margin of one comparison in a unit. A difference with no spread in a statistical check
// (every run gave the same value) is +-inf sem, or 0 for an exact tie.
double gap_margin(const Gap& g, const std::string& unit);

// The worst (smallest) margin of a set of comparisons that must all hold; unit "" when empty.
Margin worst_margin(const std::vector<Gap>& gaps);

// The distance of a slope to [lo, hi] (infinite ends allowed), in standard errors when se > 0, else
// in slope units.
Margin slope_margin(double slope, double se, double lo, double hi);

// "+3.2 sem", "-0.41 decades", "+inf sem"; "" for NaN.
std::string margin_text(double value, const std::string& unit);

}  // namespace scalinglab
