#pragma once
// A check judged on its counterfactual: a wrong model (--set overrides breaking the mechanism the
// claim rests on, docs/checks.md) on which the check must FAIL, at every one of several seeds. Run by
// `scalinglab counterfactuals` (run/counterfactuals.hpp); written to OUT/counterfactuals.json and
// shown in CLAIMS.md.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace scalinglab {

// The check on the wrong model at one seed.
struct SeedVerdict {
  uint64_t seed = 0;
  bool rejected = false;            // the check FAILED there, as it must
  std::string measured, expected;
  // How far the check failed, in `margin_unit` (> 0: rejected by that much; < 0: it passed by that
  // much): the opposite of the check's own margin (claims/margin.hpp).
  double margin = std::numeric_limits<double>::quiet_NaN();
  std::string margin_unit;
  std::string error;                // the run could not be computed, or left the check nothing to judge
};

// One check on its counterfactual, over its seeds.
struct CounterfactualResult {
  std::string sweep;                // file stem
  std::size_t index = 0;            // the check's position in its file
  std::string claim;
  std::vector<std::string> set;     // the overrides
  std::string why;
  std::string profile;              // the profile the wrong model ran at ("quick", "paper")
  std::string not_evidence;         // the check is declared no evidence: an acceptance is expected
  bool deterministic = false;       // every part deterministic: one run stands for every seed
  std::vector<SeedVerdict> seeds;
  // Summary over the seeds: rejected at every one (and computed at every one); the smallest margin
  // of rejection, and what the check measured at that seed.
  bool rejected = false;
  std::string measured, expected;
  double margin = std::numeric_limits<double>::quiet_NaN();
  std::string margin_unit;
  std::string error;                // a seed could not be computed (its message)

  std::string name() const { return sweep + " #" + std::to_string(index); }
  std::string set_text() const;     // "scheme=q1, P=d"
  std::size_t seeds_rejecting() const;
  // "REJECTS  fig1-left #1 with scheme=q1, rejected at 3/3 seeds, smallest margin +4.1 sem: ... (expected ...)"
  std::string line() const;
  // "rejected at 3/3 seeds, smallest margin +4.1 sem", "accepted at 1/3 seeds, margin at the worst -0.5 sem",
  // "deterministic (one run stands for every seed), margin +2.3 decades"
  std::string verdict_text() const;
  void summarise();                 // fills rejected, margin, measured, expected, error from `seeds`
  nlohmann::json to_json() const;
  static CounterfactualResult from_json(const nlohmann::json& j);  // throws InputError
};

// The results of a counterfactuals folder (OUT/counterfactuals.json); empty when there is none.
std::vector<CounterfactualResult> read_counterfactuals(const std::string& dir);

}  // namespace scalinglab
