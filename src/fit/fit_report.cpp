// JSON and text renderings of the fits.
#include "scalinglab/fit/fit_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "scalinglab/fit/identification.hpp"

namespace scalinglab::fit {

namespace {

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// With a bootstrap, NAME_identified too; an unidentified parameter's s.e. and interval are null
// (the refits stay in --save's file) and NAME_unidentified says why (identification.hpp).
void put(nlohmann::json& j, const std::string& name, double value, const Interval* iv,
         const Identification* ident = nullptr) {
  j[name] = number(value);
  if (iv) {
    const bool shown = !ident || ident->identified;
    j[name + "_se"] = shown ? number(iv->se) : nlohmann::json(nullptr);
    j[name + "_lo"] = shown ? number(iv->lo) : nlohmann::json(nullptr);
    j[name + "_hi"] = shown ? number(iv->hi) : nlohmann::json(nullptr);
  }
  if (ident) {
    j[name + "_identified"] = ident->identified;
    if (!ident->identified) j[name + "_unidentified"] = ident->reason;
  }
}

// NAME_lo, NAME_hi (and NAME_se) of a frontier row.
void put_band(nlohmann::json& row, const std::string& name, const Interval& iv) {
  row[name + "_lo"] = number(iv.lo);
  row[name + "_hi"] = number(iv.hi);
  row[name + "_se"] = number(iv.se);
}

// " [lo, hi]" after a frontier value, or nothing without an interval.
std::string band_text(const Interval* iv, const char* format = "{:.4g}") {
  if (!iv || !std::isfinite(iv->lo)) return "";
  return " [" + fmt::format(fmt::runtime(format), iv->lo) + ", " + fmt::format(fmt::runtime(format), iv->hi) + "]";
}

std::string interval_text(const Interval* iv) {
  if (!iv || !std::isfinite(iv->se)) return "";
  return fmt::format("{:>12.4g}   [{:.4g}, {:.4g}]", iv->se, iv->lo, iv->hi);
}

}  // namespace

AllocationBands allocation_bands(const ScalingLaw& law, const Bootstrap& boot, double C, double level) {
  std::vector<double> n, d, l;
  for (const auto& theta : boot.thetas) {
    try {
      const Allocation a = optimal_allocation(law, theta, C);
      n.push_back(a.N), d.push_back(a.D), l.push_back(a.L);
    } catch (const std::exception&) {
      // a replicate without an optimum (non-positive exponent) has no allocation
    }
  }
  return {summarise_sample(n, level), summarise_sample(d, level), summarise_sample(l, level)};
}

nlohmann::json law_fit_json(const LawFit& fit, const FitOptions& options, const Bootstrap* boot,
                            const BootstrapOptions& bo, const std::vector<double>& budgets) {
  const ScalingLaw& law = *fit.law;
  nlohmann::json j;
  j["law"] = law.name;
  j["formula"] = law.formula;
  const std::vector<Identification> ident = boot ? identify_parameters(fit, *boot, options) : std::vector<Identification>{};
  for (std::size_t p = 0; p < law.parameters.size(); ++p)
    put(j, law.parameters[p], fit.values[p], boot ? &boot->intervals[p] : nullptr, boot ? &ident[p] : nullptr);
  j["points"] = fit.residuals.points;
  j["objective"] = fit.objective;
  j["huber_delta"] = number(fit.delta);  // null: least squares in log space
  j["loss_function"] = std::isfinite(fit.delta) ? "huber" : "least_squares";
  j["objective_kind"] = fit.likelihood ? "mle" : "huber";  // mle: objective is the negative log-likelihood
  if (fit.likelihood) {
    put(j, "noise_sd", fit.noise_sd, boot ? &boot->noise_sd : nullptr);
    j["noise_scale"] = number(fit.noise_scale);
  }
  j["warnings"] = fit.warnings;
  j["starts"] = fit.starts;
  j["starts_at_best"] = fit.near_best;
  j["starts_polished"] = fit.polished;
  j["residuals"] = {{"rmse", fit.residuals.rmse}, {"mae", fit.residuals.mae},   {"max_abs", fit.residuals.max_abs},
                    {"mean", fit.residuals.mean}, {"r2", number(fit.residuals.r2)}, {"scale", "log"}};
  j["coordinates"] = nlohmann::json::object();
  for (std::size_t k = 0; k < law.coordinates.size(); ++k) j["coordinates"][law.coordinates[k]] = fit.theta[k];
  if (boot)
    j["bootstrap"] = {{"replicates", boot->replicates.size()}, {"level", bo.level}, {"seed", bo.seed},
                      {"starts", bo.starts}, {"seconds", boot->seconds}};
  if ((law.has_frontier || law.inputs == std::vector<std::string>{"N", "D"}) && !budgets.empty()) {
    j["frontier"] = nlohmann::json::array();
    for (double C : budgets) {
      const Allocation a = optimal_allocation(fit, C);
      nlohmann::json row = {{"C", C}, {"N_opt", a.N}, {"D_opt", a.D}, {"loss", a.L}};
      if (boot) {
        const AllocationBands band = allocation_bands(law, *boot, C, bo.level);
        put_band(row, "N_opt", band.N);
        put_band(row, "D_opt", band.D);
        put_band(row, "loss", band.L);
      }
      j["frontier"].push_back(row);
    }
  }
  return j;
}

std::string law_fit_table(const LawFit& fit, const FitOptions& options, const Bootstrap* boot,
                          const BootstrapOptions& bo, const std::vector<double>& budgets) {
  const ScalingLaw& law = *fit.law;
  std::string out = law.name == law.formula ? fmt::format("law: {}\n", law.formula)
                                             : fmt::format("{} law: {}\n", law.name, law.formula);
  const std::string loss = std::isfinite(fit.delta) ? fmt::format("Huber loss (delta {:g})", fit.delta)
                                                    : std::string("squared error");
  const std::string screened =
      fit.polished < fit.starts ? fmt::format(" (screened, the best {} continued to full tolerance)", fit.polished) : "";
  const std::string objective =
      fit.likelihood ? fmt::format("maximum likelihood of log residuals ({} density{}, noise scale fitted)",
                                   std::isfinite(fit.delta) ? "Huber" : "normal",
                                   std::isfinite(fit.delta) ? fmt::format(", delta {:g}", fit.delta) : "")
                     : loss + " of log residuals summed";
  out += fmt::format("{} points; {}; {} L-BFGS starts{}, {} ended at the best; {} {:.10g}\n", fit.residuals.points,
                     objective, fit.starts, screened, fit.near_best,
                     fit.likelihood ? "negative log-likelihood" : "objective", fit.objective);
  for (const auto& w : fit.warnings) out += "WARNING: " + w + "\n";
  out += boot ? fmt::format("\n{:<10} {:>12} {:>12}   {:.0f}% interval ({} bootstrap refits, {:.1f} s)\n", "parameter",
                            "value", "std. error", 100 * bo.level, boot->replicates.size(), boot->seconds)
              : fmt::format("\n{:<10} {:>12}\n", "parameter", "value");
  const std::vector<Identification> ident = boot ? identify_parameters(fit, *boot, options) : std::vector<Identification>{};
  std::vector<std::pair<std::string, std::string>> unidentified;  // reason, the parameters it applies to
  for (std::size_t p = 0; p < law.parameters.size(); ++p) {
    if (boot && !ident[p].identified) {
      out += fmt::format("{:<10} {:>12.6g} {:>12}   ({})\n", law.parameters[p], fit.values[p], "unidentified",
                         ident[p].brief);
      auto same = std::find_if(unidentified.begin(), unidentified.end(),
                               [&](const auto& u) { return u.first == ident[p].reason; });
      if (same == unidentified.end()) unidentified.emplace_back(ident[p].reason, law.parameters[p]);
      else same->second += ", " + law.parameters[p];
      continue;
    }
    out += fmt::format("{:<10} {:>12.6g} {}\n", law.parameters[p], fit.values[p],
                       interval_text(boot ? &boot->intervals[p] : nullptr));
  }
  if (fit.likelihood)
    out += fmt::format("{:<10} {:>12.6g} {}   (noise: the fitted density's standard deviation of log loss)\n", "sigma",
                       fit.noise_sd, interval_text(boot ? &boot->noise_sd : nullptr));
  if (!unidentified.empty()) {
    out += "unidentified (the data do not pin these down, so a standard error would be a meaningless number; fix one "
           "with --bounds, or add runs that vary what it describes): ";
    for (std::size_t k = 0; k < unidentified.size(); ++k)
      out += (k ? "; " : "") + unidentified[k].second + ": " + unidentified[k].first;
    out += "\n";
  }
  out += fmt::format("\nlog residuals: rmse {:.4g}, mean abs {:.4g}, max abs {:.4g}, mean {:.3g}, R^2 {}\n",
                     fit.residuals.rmse, fit.residuals.mae, fit.residuals.max_abs, fit.residuals.mean,
                     std::isfinite(fit.residuals.r2) ? fmt::format("{:.4f}", fit.residuals.r2)
                                                     : std::string("n/a (the losses do not vary)"));
  const bool numeric = !law.has_frontier && law.inputs == std::vector<std::string>{"N", "D"};
  if (numeric && !budgets.empty()) out += "compute-optimal allocation (C = 6 N D; minimised numerically):\n";
  if (law.has_frontier || numeric) {
    if (law.has_frontier)
      out += fmt::format("compute-optimal frontier (C = 6 N D): N_opt ~ C^{:.4f}, D_opt ~ C^{:.4f}\n", fit.value("a"),
                         fit.value("b"));
    for (double C : budgets) {
      const Allocation a = optimal_allocation(fit, C);
      if (!boot) {
        out += fmt::format("  C = {:.3g}: N_opt = {:.4g}, D_opt = {:.4g}, D/N = {:.3g}, loss {:.4f}\n", C, a.N, a.D,
                           a.D / a.N, a.L);
        continue;
      }
      const AllocationBands band = allocation_bands(law, *boot, C, bo.level);
      out += fmt::format("  C = {:.3g} ({:.0f}% intervals): N_opt = {:.4g}{}, D_opt = {:.4g}{}, D/N = {:.3g}, loss {:.4f}{}\n",
                         C, 100 * bo.level, a.N, band_text(&band.N), a.D, band_text(&band.D), a.D / a.N, a.L,
                         band_text(&band.L, "{:.4f}"));
    }
  }
  return out;
}

nlohmann::json isoflop_json(const IsoflopFit& fit, const IsoflopBootstrap* boot, const BootstrapOptions& bo,
                            const std::vector<double>& budgets) {
  nlohmann::json j;
  j["method"] = "isoflop";
  put(j, "a", fit.a(), boot ? &boot->a : nullptr);
  put(j, "b", fit.b(), boot ? &boot->b : nullptr);
  j["a_ols_se"] = number(fit.n_opt.slope_se);
  j["b_ols_se"] = number(fit.d_opt.slope_se);
  j["a_r2"] = number(fit.n_opt.r2);
  // The loss at the minima, two ways: a power law k C^p (p is loss_exponent) and E + A C^-gamma.
  j["loss_exponent"] = number(fit.l_opt.slope);
  j["loss_power"] = {{"formula", "L_opt = k C^p"}, {"k", number(std::exp(fit.l_opt.intercept))},
                     {"p", number(fit.l_opt.slope)}, {"r2", number(fit.l_opt.r2)}};
  if (boot) put_band(j["loss_power"], "p", boot->p);
  const SaturatingLoss& law = fit.loss_law;
  j["loss_law"] = {{"formula", "L_opt = E + A C^-gamma"}, {"fitted", law.fitted}, {"E", number(law.E)},
                   {"A", number(law.A)}, {"gamma", number(law.gamma)}, {"log_rmse", number(law.rmse)}};
  if (boot && law.fitted) {
    put_band(j["loss_law"], "E", boot->E);
    put_band(j["loss_law"], "A", boot->A);
    put_band(j["loss_law"], "gamma", boot->gamma);
    j["loss_law"]["bootstrap_fits"] = boot->loss_law_fits;
  }
  if (!law.note.empty()) j["loss_law"]["note"] = law.note;
  j["grouping"] = fit.options.budget_labels.empty() ? "tolerance" : "budget column";
  if (fit.options.budget_labels.empty()) j["group_tolerance"] = fit.options.group_tolerance;
  j["trim"] = fit.options.trim;
  j["log_loss"] = fit.options.log_loss;
  j["slices"] = nlohmann::json::array();
  for (const auto& s : fit.slices)
    j["slices"].push_back({{"C", s.C}, {"runs", s.points}, {"trimmed", s.trimmed}, {"N_opt", s.N_opt}, {"D_opt", s.D_opt},
                           {"loss_opt", s.L_opt}, {"position", s.position}, {"off_centre", s.off_centre()}});
  j["skipped"] = fit.skipped;
  j["skipped_runs"] = fit.skipped_runs;
  j["runs"] = fit.runs;
  j["warnings"] = fit.warnings;
  if (boot)
    j["bootstrap"] = {{"replicates", boot->replicates}, {"failed", boot->failed}, {"slices_lost", boot->slices_lost}, {"level", bo.level},
                      {"seed", bo.seed}, {"seconds", boot->seconds}};
  if (!budgets.empty()) {
    j["frontier"] = nlohmann::json::array();
    for (std::size_t k = 0; k < budgets.size(); ++k) {
      const double C = budgets[k];
      nlohmann::json row = {{"C", C}, {"N_opt", fit.N_at(C)}, {"D_opt", fit.D_at(C)}, {"loss", fit.L_at(C)},
                            {"loss_power", fit.L_at_power(C)}};
      if (boot) {
        put_band(row, "N_opt", boot->n_at[k]);
        put_band(row, "D_opt", boot->d_at[k]);
        put_band(row, "loss", boot->l_at[k]);
        put_band(row, "loss_power", boot->l_power_at[k]);
      }
      j["frontier"].push_back(row);
    }
  }
  return j;
}

std::string isoflop_table(const IsoflopFit& fit, const IsoflopBootstrap* boot, const BootstrapOptions& bo,
                          const std::vector<double>& budgets) {
  std::string out = fit.options.log_loss
                        ? "IsoFLOP analysis (Approach 2): a parabola of log loss in log N per compute budget"
                        : "IsoFLOP analysis (Approach 2): a parabola of the loss in log N per compute budget";
  out += fit.options.budget_labels.empty() ? "\n" : " (slices: equal values of the budget column)\n";
  if (fit.options.trim > 0)
    out += fmt::format("trimmed: in each slice, runs with loss above (1 + {:g}) x its lowest loss\n", fit.options.trim);
  // "min at": where the minimum lies among the sizes fitted (0% smallest, 100% largest, log N); * off-centre.
  out += fmt::format("\n{:>12} {:>6} {:>8} {:>12} {:>12} {:>10} {:>7}\n", "C", "runs", "trimmed", "N_opt", "D_opt",
                     "loss_opt", "min at");
  for (const auto& s : fit.slices)
    out += fmt::format("{:>12.4g} {:>6} {:>8} {:>12.4g} {:>12.4g} {:>10.5f} {:>6.0f}%{}\n", s.C, s.points, s.trimmed,
                       s.N_opt, s.D_opt, s.L_opt, 100 * s.position, s.off_centre() ? " *" : "");
  for (const auto& s : fit.skipped) out += "skipped: " + s + "\n";
  auto line = [&](const char* name, const Regression& r, const Interval* iv) {
    std::string t = fit.slices.size() == 2
                        ? fmt::format("{}_opt ~ C^{:.4f} (a line through 2 slices: no regression s.e.)", name, r.slope)
                        : fmt::format("{}_opt ~ C^{:.4f} (regression s.e. {:.3g}, R^2 {:.4f})", name, r.slope, r.slope_se, r.r2);
    if (iv && std::isfinite(iv->se))
      t += fmt::format("; bootstrap s.e. {:.3g}, {:.0f}% interval [{:.4f}, {:.4f}]", iv->se, 100 * bo.level, iv->lo, iv->hi);
    return t + "\n";
  };
  out += "\n" + line("N", fit.n_opt, boot ? &boot->a : nullptr) + line("D", fit.d_opt, boot ? &boot->b : nullptr);
  out += fmt::format("L_opt = {:.6g} C^{:.5f}{} (power law, R^2 {:.4f})\n", std::exp(fit.l_opt.intercept), fit.l_opt.slope,
                     band_text(boot ? &boot->p : nullptr, "{:.5f}"), fit.l_opt.r2);
  const SaturatingLoss& law = fit.loss_law;
  if (law.fitted && boot)
    out += fmt::format("L_opt = E + A C^-gamma: E = {:.6g}{}, A = {:.6g}{}, gamma = {:.5f}{} (log rmse {:.3g}; used for "
                       "the loss below; {:.0f}% intervals from {} bootstrap refits of the law)\n",
                       law.E, band_text(&boot->E), law.A, band_text(&boot->A), law.gamma,
                       band_text(&boot->gamma, "{:.5f}"), law.rmse, 100 * bo.level, boot->loss_law_fits);
  else if (law.fitted)
    out += fmt::format("L_opt = E + A C^-gamma: E = {:.6g}, A = {:.6g}, gamma = {:.5f} (log rmse {:.3g}; used for the "
                       "loss below)\n", law.E, law.A, law.gamma, law.rmse);
  else
    out += "L_opt = E + A C^-gamma: " + law.note + "\n";
  if (boot)
    out += fmt::format("({} bootstrap replicates within slices, {:.2f} s; {} resampled slices without an interior "
                       "minimum left out of their replicate, {} replicates dropped)\n",
                       boot->replicates, boot->seconds, boot->slices_lost, boot->failed);
  for (std::size_t k = 0; k < budgets.size(); ++k) {
    const double C = budgets[k];
    if (!boot) {
      out += fmt::format("  C = {:.3g}: N_opt = {:.4g}, D_opt = {:.4g}, loss {:.4f}", C, fit.N_at(C), fit.D_at(C), fit.L_at(C));
      if (law.fitted) out += fmt::format(" (power law {:.4f})", fit.L_at_power(C));
      out += "\n";
      continue;
    }
    out += fmt::format("  C = {:.3g} ({:.0f}% intervals): N_opt = {:.4g}{}, D_opt = {:.4g}{}, loss {:.4f}{}", C,
                       100 * bo.level, fit.N_at(C), band_text(&boot->n_at[k]), fit.D_at(C), band_text(&boot->d_at[k]),
                       fit.L_at(C), band_text(&boot->l_at[k], "{:.4f}"));
    if (law.fitted)
      out += fmt::format(" (power law {:.4f}{})", fit.L_at_power(C), band_text(&boot->l_power_at[k], "{:.4f}"));
    out += "\n";
  }
  for (const auto& w : fit.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace scalinglab::fit
