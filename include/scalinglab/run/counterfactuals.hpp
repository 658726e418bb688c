#pragma once
// Wrong models each claim must reject. A check counted as evidence declares a counterfactual: --set
// overrides of the model that break the mechanism the claim rests on (a scheme without the
// thresholding that gives the rate, the paper's own bound where the project repaired it, a lookup
// table where the claim is about interference). `scalinglab counterfactuals PAPER` runs each sweep
// again with those overrides and requires every such check to FAIL there: a check that passes on a
// model without the mechanism cannot tell the two apart, and is no evidence (docs/checks.md).
#include <cstddef>
#include <string>
#include <vector>

#include "scalinglab/claims/counterfactual.hpp"

namespace scalinglab {

struct CounterfactualOptions {
  std::string paper;                // folder name under experiments/
  std::string profile = "quick";
  std::string out_dir;              // default: results/<paper>-<profile>-counterfactuals
  std::string experiments_dir;      // default: found as for reproduce
  std::vector<std::string> only;    // sweep stems to run (empty: every sweep of the paper)
  int threads = 0;
  bool resume = false;
  bool quiet = false;
};

struct CounterfactualOutcome {
  std::string out_dir;
  std::vector<CounterfactualResult> results;
  // Checks counted as evidence under the profile (not substitutes, not known failures) that declare
  // no counterfactual: "fig1-left #3".
  std::vector<std::string> missing;
  std::size_t rejected() const;
  bool ok() const;  // every counterfactual rejected and none missing
};

// Loads every sweep of the paper and its counterfactual variants (bad input throws InputError before
// anything runs), runs each variant into OUT/<stem>/counterfactual-<k>/, prints one line per check
// and writes OUT/counterfactuals.json.
CounterfactualOutcome run_counterfactuals(const CounterfactualOptions& options);

}  // namespace scalinglab
