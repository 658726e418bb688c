// Placeholder until the checks are implemented.
#include "scalinglab/lab/check.hpp"

namespace scalinglab {
nlohmann::json CheckResult::to_json() const { return {{"claim", claim}, {"passed", passed}}; }
std::string CheckResult::line() const { return (passed ? "PASS  " : "FAIL  ") + claim; }
std::vector<CheckResult> evaluate_checks(const Sweep&, const Table&) { return {}; }
}  // namespace scalinglab
