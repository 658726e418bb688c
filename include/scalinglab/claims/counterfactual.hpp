#pragma once
// A check judged on its counterfactual: a wrong model (--set overrides breaking the mechanism the
// claim rests on, docs/checks.md) on which the check must FAIL. Run by `scalinglab counterfactuals`
// (run/counterfactuals.hpp); written to OUT/counterfactuals.json and shown in CLAIMS.md.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace scalinglab {

// One check on its counterfactual.
struct CounterfactualResult {
  std::string sweep;                // file stem
  std::size_t index = 0;            // the check's position in its file
  std::string claim;
  std::vector<std::string> set;     // the overrides
  std::string why;
  bool rejected = false;            // the check FAILED on the wrong model, as it must
  std::string measured, expected;   // what the check measured there
  std::string error;                // the counterfactual run could not be computed

  std::string name() const { return sweep + " #" + std::to_string(index); }
  std::string set_text() const;     // "scheme=q1, P=d"
  std::string line() const;         // "REJECTS  fig1-left #1 with scheme=q1: ... (expected ...)"
  nlohmann::json to_json() const;
  static CounterfactualResult from_json(const nlohmann::json& j);  // throws InputError
};

// The results of a counterfactuals folder (OUT/counterfactuals.json); empty when there is none.
std::vector<CounterfactualResult> read_counterfactuals(const std::string& dir);

}  // namespace scalinglab
