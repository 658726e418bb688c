#pragma once
// Approach 2 (IsoFLOP parabolas) and Approach 3 (a fitted Chinchilla law) side by side: their
// frontier exponents and, at each budget asked, N_opt, D_opt and L_opt with their bootstrap
// intervals. Where the two intervals of a quantity are disjoint the approaches disagree beyond
// their own uncertainty: at least one of them misdescribes the data (the parabolas' minima, the
// law's form, or the noise), and neither interval can be taken at face value.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scalinglab/fit/fit_method.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

struct ApproachComparison {
  double level = 0.95;
  Estimate a2, a3;                          // N_opt ~ C^a by each approach
  std::vector<FrontierPrediction> at2, at3;  // one per budget, by each approach
  std::vector<std::string> warnings;         // one per quantity whose intervals are disjoint
};

// `boot2`, `boot3` may be null (then there are no intervals and no warnings). The law fit must
// have a closed-form frontier (chinchilla, kaplan).
ApproachComparison compare_approaches(const IsoflopFit& iso, const IsoflopBootstrap* boot2, const LawFit& law,
                                      const Bootstrap* boot3, const std::vector<double>& budgets, double level);

// True when both estimates have intervals and the intervals do not overlap.
bool disjoint(const Estimate& x, const Estimate& y);

nlohmann::json comparison_json(const ApproachComparison& c);
std::string comparison_table(const ApproachComparison& c);

}  // namespace scalinglab::fit
