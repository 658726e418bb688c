#pragma once
// The figures of the extrapolation benchmark, drawn from its leaderboard (one panel per world):
//   extrapolation-N   predicted / true N_opt against the horizon, median and quartiles per method
//   extrapolation-L   the same for L_opt
//   coverage          how often each method's 95% interval on N_opt contains the truth
//   design-cost       median |N_opt error| at the largest horizon against the compute of the small runs,
//                     one knob of the design turned at a time (design-cost-regret: the same for regret)
#include <string>

#include <nlohmann/json.hpp>

namespace scalinglab::extrapolate {

// Writes OUT/NAME.{svg,png,pdf} for each figure; false when gnuplot failed for any (warned).
bool plot_benchmark(const std::string& out_dir, const nlohmann::json& report);

}  // namespace scalinglab::extrapolate
