#pragma once
// Whether the data pin each fitted parameter down. When they do not, its bootstrap standard error
// is a number without meaning (1.3e14 for a scale fitted as 400), so the reports print
// "unidentified" in its place and say why. A parameter is unidentified when
//   - the fit has a flat direction in it (the Jacobian's null space, as in the "not unique"
//     warning): where a refit ends along it depends on its start, not on the data;
//   - at least kBoundShare of the bootstrap refits end on one of its bounds: the bound, not the
//     data, then limits it, and the standard error measures the distance to the bound;
//   - it is positive and the central 95% of its bootstrap refits (whatever --level) spans more than
//     a factor kSpanLimit: not even its order of magnitude is known;
//   - or it is computed from one of the above (the compute-optimal exponents and G of `chinchilla`).
#include <string>
#include <vector>

#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

// A well-determined scale spans a factor of a few (porian's A on the Llama 3 minima: [73, 177]);
// over three orders of magnitude the s.e., a standard deviation in the parameter's own units, is
// set by the few largest refits.
inline constexpr double kSpanLimit = 1e3;
// A tenth of the refits on a bound puts the ends of the 95% and of the 80% interval on it.
inline constexpr double kBoundShare = 0.1;

struct Identification {
  bool identified = true;
  std::string reason;  // why not, with the numbers ("its central 95% of refits, [0.2, 3e+09], spans ...")
  std::string brief;   // the same in a few words, for a table's row
};

// One per fit.law->parameters entry; `options` gives the fit's bounds.
std::vector<Identification> identify_parameters(const LawFit& fit, const Bootstrap& boot, const FitOptions& options);

}  // namespace scalinglab::fit
