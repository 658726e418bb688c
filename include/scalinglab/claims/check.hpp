#pragma once
// Evaluation of a sweep's checks (claims of the paper) on the aggregated table.
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

struct Table;
struct TaskResult;

struct CheckResult {
  std::string claim;
  std::string kind;
  bool passed = false;
  std::string measured;  // e.g. "slope -0.97 over 8 points (d in [16, 512])"
  std::string expected;  // e.g. "-1 +- 0.15"
  // Set from the check's `known_failure`: a claim known not to reproduce at this scale (the reason).
  // It is still evaluated and reported, as KNOWN FAIL when it fails, but does not fail the run.
  std::string known_failure;
  std::vector<std::string> refs;  // the paper's items it tests (the check's `ref`)
  std::string substitute;         // why it tests another setting than the paper's ("": the paper's)
  std::string reduced;            // why the run is smaller than the paper's setting ("": the paper's)
  std::size_t index = 0;          // position of the [[check]] in its file (1-based)
  // False when the table gave the check nothing to judge (no rows selected, too few points, a name it
  // lacks): it fails, but says nothing about the claim (a counterfactual that empties it is no test).
  bool judged = true;
  // How far the verdict is from flipping, in `margin_unit` (claims/margin.hpp): > 0 when the check
  // passes by that much, < 0 when it fails by that much, NaN when it judged nothing. Means over
  // runs count standard errors ("sem"); deterministic values the ratio to their bound in decades
  // ("decades"), a slope's distance to its range ("slope"), or a plain difference ("abs", "ratio").
  double margin = std::numeric_limits<double>::quiet_NaN();
  std::string margin_unit;
  // Claims whose counterfactual cannot make it fail: run and shown, never counted as evidence
  // (`not_evidence = "why"` in the file; its items are "not checked" unless another check tests them).
  std::string not_evidence;
  const char* status() const;  // "PASS", "FAIL" or "KNOWN FAIL"
  // What the result says about the paper's claim: "reproduced" (passed at the paper's setting),
  // "reduced" (passed at a smaller scale), "substitute" (passed in another setting: never counts as
  // reproducing), "not reproduced" (failed, known or not).
  const char* category() const;
  bool ok() const { return passed || !known_failure.empty(); }
  nlohmann::json to_json() const;
  std::string line() const;  // "PASS  claim: measured ... (expected ...)", for a terminal (terminal_text)
};

// Evaluates every check; a check whose selection is empty FAILS with a message saying so. Checks on
// series metrics (`equal_compute`: curves compared at the same compute) read the runs' records,
// `results` (null: such a check fails as not judged).
std::vector<CheckResult> evaluate_checks(const Sweep& sweep, const Table& table,
                                         const std::vector<TaskResult>* results = nullptr);

}  // namespace scalinglab
