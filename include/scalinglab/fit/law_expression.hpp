#pragma once
// A scaling law written as an expression, e.g. "E + A/N^alpha + B/D^beta": the variables that name
// data (columns) are its inputs, every other variable is a parameter to fit. The expression is
// compiled once into a list of operations evaluated over all points at a time, with exact
// gradients by forward-mode differentiation (each value carries its derivatives with respect to
// the parameters it depends on), so the fitter gets the law's Jacobian without finite differences.
//
// Coordinates: a parameter bounded below by 0 (or more) and not above (bounds "A=0:") is a
// positive scale and is fitted as its logarithm, so it can span many orders of magnitude; other
// parameters are fitted in their own units, within their bounds (L-BFGS-B) when they have any.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scalinglab/fit/scaling_law.hpp"

namespace scalinglab::fit {

struct ExpressionLawOptions {
  std::string name = "custom";
  std::map<std::string, Bounds> bounds;              // by parameter name, in the parameter's units
  std::map<std::string, std::vector<double>> grid;   // initial values by parameter name, in its units
};

// `data_names`: the names that are data (e.g. N, D, C, x and the table's columns). Throws
// InputError for a syntax error, an expression without parameters, more than 64 parameters, a
// parameter inside a function with no derivative here (zeta), or grid/bounds naming something that
// is not a parameter.
ScalingLaw expression_law(const std::string& text, const std::vector<std::string>& data_names,
                          const ExpressionLawOptions& options = {});

// "alpha=0:2,E=0:,beta=:3" -> bounds by name (either side may be empty: unbounded).
std::map<std::string, Bounds> parse_bounds(const std::string& text);

// One grid option "NAME=v1,v2,..." where each item is a constant expression ("exp(5)") or a range
// "first:step:last"; "log(NAME)=..." gives the values of log NAME. `option` names it in messages
// ("--grid", "predict"). A range is counted before its values are made: more than `max_values` is
// refused (through check_limit, naming `raise_with`, when that is given), and so is a step too
// small to change the value it is added to.
std::pair<std::string, std::vector<double>> parse_grid_option(const std::string& text, const std::string& option = "--grid",
                                                             double max_values = 1000, const std::string& raise_with = "");

// The default initial values of a parameter fitted in its own units within `b`, or (positive
// scales) of its logarithm.
std::vector<double> default_grid(const Bounds& b);

}  // namespace scalinglab::fit
