#pragma once
// Evaluation of a sweep's checks (claims of the paper) on the aggregated table.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scalinglab/lab/sweep.hpp"

namespace scalinglab {

struct Table;

struct CheckResult {
  std::string claim;
  std::string kind;
  bool passed = false;
  std::string measured;  // e.g. "slope -0.97 over 8 points (d in [16, 512])"
  std::string expected;  // e.g. "-1 +- 0.15"
  nlohmann::json to_json() const;
  std::string line() const;  // "PASS  claim: measured ... (expected ...)"
};

// Evaluates every check; a check whose selection is empty FAILS with a message saying so.
std::vector<CheckResult> evaluate_checks(const Sweep& sweep, const Table& table);

}  // namespace scalinglab
