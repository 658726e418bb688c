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
  std::string paper;                // folder name under experiments/, or a sweep file (*.toml)
  std::string profile = "quick";
  std::string out_dir;              // default: results/<paper>-<profile>-counterfactuals
  std::string experiments_dir;      // default: found as for reproduce
  std::vector<std::string> only;    // sweep stems to run (empty: every sweep of the paper)
  // Seeds each wrong model runs at (the sweep's seed, then the next ones); a check rejects it only
  // when it fails at every seed. A sweep whose measures are all deterministic runs once.
  int seeds = 3;
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
  // Every counterfactual rejected at every seed (a check declared no evidence: accepted, as it
  // says), none could not be computed, and none is missing.
  bool ok() const;
};

// Loads every sweep of the paper and its counterfactual variants (bad input throws InputError before
// anything runs), runs each variant at each seed into OUT/<stem>/counterfactual-<k>/seed-<s>/ (only
// the grid points its checks select, without a figure), prints one line per check and writes
// OUT/counterfactuals.json.
CounterfactualOutcome run_counterfactuals(const CounterfactualOptions& options);

}  // namespace scalinglab
