#pragma once
// Fits as JSON (flat keys: E, E_se, E_lo, E_hi, ...; loads straight into pandas) and as tables.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scalinglab/fit/frontier.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

// `boot` may be null (no bootstrap). `budgets`: frontier predictions (two-input laws).
nlohmann::json law_fit_json(const LawFit& fit, const FitOptions& options, const Bootstrap* boot,
                            const BootstrapOptions& boot_options, const std::vector<double>& budgets);
std::string law_fit_table(const LawFit& fit, const FitOptions& options, const Bootstrap* boot,
                          const BootstrapOptions& boot_options, const std::vector<double>& budgets);

nlohmann::json isoflop_json(const IsoflopFit& fit, const IsoflopBootstrap* boot, const BootstrapOptions& boot_options,
                            const std::vector<double>& budgets);
std::string isoflop_table(const IsoflopFit& fit, const IsoflopBootstrap* boot, const BootstrapOptions& boot_options,
                          const std::vector<double>& budgets);

// Percentile bands of N_opt(C), D_opt(C) and the loss there over the bootstrap replicates of a
// two-input law (each replicate's own optimal allocation; replicates without one are left out).
struct AllocationBands {
  Interval N, D, L;
};
AllocationBands allocation_bands(const ScalingLaw& law, const Bootstrap& boot, double C, double level);
inline Interval allocation_band(const ScalingLaw& law, const Bootstrap& boot, double C, double level) {
  return allocation_bands(law, boot, C, level).N;
}

}  // namespace scalinglab::fit
