// Approach 1 on a table of learning curves: the envelope, its case bootstrap over runs, reports.
#include "scalinglab/fit/envelope_bootstrap.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"

namespace scalinglab::fit {

namespace {

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

std::string band(const Interval& iv, const char* format = "{:.4g}") {
  if (!std::isfinite(iv.lo) || !std::isfinite(iv.hi)) return "";
  return fmt::format(fmt::runtime(std::string(" [") + format + ", " + format + "]"), iv.lo, iv.hi);
}

void put(nlohmann::json& j, const std::string& name, double value, const Interval* iv) {
  j[name] = number(value);
  if (!iv) return;
  j[name + "_se"] = number(iv->se);
  j[name + "_lo"] = number(iv->lo);
  j[name + "_hi"] = number(iv->hi);
}

}  // namespace

Curves curves_from_rows(const std::vector<std::string>& run, const std::vector<double>& N, const std::vector<double>& C,
                        const std::vector<double>& loss, const std::string& run_column) {
  Curves c;
  std::map<std::string, int> id;
  std::map<int, double> size;
  for (std::size_t i = 0; i < run.size(); ++i) {
    const auto [it, fresh] = id.emplace(run[i], static_cast<int>(id.size()));
    const int k = it->second;
    if (!fresh && size[k] != N[i])
      throw InputError("--run " + run_column + ": run '" + run[i] + "' has more than one model size N (" +
                       fmt::format("{:g} and {:g}", size[k], N[i]) + "); a run is one model's learning curve");
    size[k] = N[i];
    c.run.push_back(k);
    c.N.push_back(N[i]);
    c.C.push_back(C[i]);
    c.loss.push_back(loss[i]);
  }
  return c;
}

EnvelopeBootstrap bootstrap_envelope(const Curves& curves, const BootstrapOptions& boot, const std::vector<double>& at,
                                     int threads, const FitMonitor* monitor) {
  const auto t0 = std::chrono::steady_clock::now();
  int runs = 0;
  for (int id : curves.run) runs = std::max(runs, id + 1);
  const auto R = static_cast<std::size_t>(boot.replicates);
  std::vector<double> a(R, NAN), l(R, NAN);
  std::vector<std::vector<double>> n_at(at.size(), std::vector<double>(R, NAN)), l_at = n_at;
  StageProgress bar(monitor, R, "frontier: bootstrap of the runs' curves", "resamples");
  parallel_for(R, threads, [&](std::size_t r, int) {
    // A stream per replicate: the same resamples whatever the threads.
    std::mt19937_64 rng(boot.seed * 0x9E3779B97F4A7C15ULL + r + 1);
    std::uniform_int_distribution<int> pick(0, runs - 1);
    std::vector<double> w(static_cast<std::size_t>(runs), 0.0);
    for (int k = 0; k < runs; ++k) w[static_cast<std::size_t>(pick(rng))] += 1;
    try {
      // The power law of the loss per replicate (refitting E + A C^-gamma each time is costly).
      const Envelope e = fit_envelope(curves, w, 60, false);
      a[r] = e.n_opt.slope;
      l[r] = e.l_opt.slope;
      for (std::size_t k = 0; k < at.size(); ++k) n_at[k][r] = e.N_at(at[k]), l_at[k][r] = e.L_at(at[k]);
    } catch (const InputError&) {
      // one model size drawn: no envelope; counted below
    }
    bar.advance();
  });
  EnvelopeBootstrap out;
  out.replicates = boot.replicates;
  auto finite = [](const std::vector<double>& v) {
    std::vector<double> f;
    for (double x : v)
      if (std::isfinite(x)) f.push_back(x);
    return f;
  };
  const std::vector<double> fa = finite(a);
  out.failed = static_cast<int>(R - fa.size());
  if (fa.size() < 2) throw InputError("Approach 1: fewer than 2 bootstrap resamples of the runs give an envelope");
  out.a = summarise_sample(fa, boot.level);
  out.l_slope = summarise_sample(finite(l), boot.level);
  for (std::size_t k = 0; k < at.size(); ++k) {
    out.N_at.push_back(summarise_sample(finite(n_at[k]), boot.level));
    out.L_at.push_back(summarise_sample(finite(l_at[k]), boot.level));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

namespace {

std::size_t count_runs(const Curves& c) { return std::set<int>(c.run.begin(), c.run.end()).size(); }

}  // namespace

nlohmann::json envelope_json(const Envelope& e, const Curves& curves, const EnvelopeBootstrap* boot,
                             const BootstrapOptions& options, const std::vector<double>& at) {
  nlohmann::json j = {{"method", "approach1"}, {"runs", count_runs(curves)}, {"checkpoints", curves.size()}};
  put(j, "a", e.n_opt.slope, boot ? &boot->a : nullptr);
  put(j, "b", 1 - e.n_opt.slope, nullptr);  // D_opt = C / (6 N_opt): b = 1 - a
  if (boot) {
    j["b_se"] = number(boot->a.se);
    j["b_lo"] = number(1 - boot->a.hi);
    j["b_hi"] = number(1 - boot->a.lo);
  }
  j["a_regression_se"] = number(e.n_opt.slope_se);
  j["a_r2"] = number(e.n_opt.r2);
  put(j, "L_opt_exponent", e.l_opt.slope, boot ? &boot->l_slope : nullptr);
  if (e.loss_law.fitted) j["loss_law"] = {{"E", e.loss_law.E}, {"A", e.loss_law.A}, {"gamma", e.loss_law.gamma}};
  nlohmann::json env = nlohmann::json::array();
  for (std::size_t i = 0; i < e.C.size(); ++i) env.push_back({{"C", e.C[i]}, {"N_opt", e.N_opt[i]}, {"L_opt", e.L_opt[i]}});
  j["envelope"] = env;
  j["level"] = options.level;
  if (boot) j["bootstrap"] = {{"replicates", boot->replicates}, {"failed", boot->failed}, {"seconds", boot->seconds},
                              {"unit", "runs (whole curves)"}};
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t k = 0; k < at.size(); ++k) {
    const double C = at[k], N = e.N_at(C);
    nlohmann::json row = {{"C", C}};
    put(row, "N_opt", N, boot ? &boot->N_at[k] : nullptr);
    row["D_opt"] = number(C / (6 * N));
    if (boot) row["D_opt_lo"] = number(C / (6 * boot->N_at[k].hi)), row["D_opt_hi"] = number(C / (6 * boot->N_at[k].lo));
    // The loss's interval comes from the power law; with the saturating law fitted it is not the
    // point estimate's, so it is left out.
    put(row, "loss", e.L_at(C), boot && !e.loss_law.fitted ? &boot->L_at[k] : nullptr);
    rows.push_back(row);
  }
  j["at"] = rows;
  return j;
}

std::string envelope_table(const Envelope& e, const Curves& curves, const EnvelopeBootstrap* boot,
                           const BootstrapOptions& options, const std::vector<double>& at) {
  std::string out = fmt::format(
      "Envelope of training curves (Approach 1): {} runs, {} checkpoints; at each of {} log-spaced budgets the lowest "
      "loss over the runs that reach it\n\n", count_runs(curves), curves.size(), e.C.size());
  out += fmt::format("{:>12} {:>12} {:>10}\n", "C", "N_opt", "L_opt");
  const std::size_t step = std::max<std::size_t>(1, e.C.size() / 8);
  for (std::size_t i = 0; i < e.C.size(); i += step)
    out += fmt::format("{:>12.4g} {:>12.4g} {:>10.5f}\n", e.C[i], e.N_opt[i], e.L_opt[i]);
  out += fmt::format("\nN_opt ~ C^{:.4f} (regression s.e. {:.3g}, R^2 {:.4f})", e.n_opt.slope, e.n_opt.slope_se, e.n_opt.r2);
  if (boot)
    out += fmt::format("; bootstrap of runs s.e. {:.3g}, {:.0f}% interval [{:.4f}, {:.4f}]", boot->a.se,
                       100 * options.level, boot->a.lo, boot->a.hi);
  out += fmt::format("\nD_opt ~ C^{:.4f} (D_opt = C / (6 N_opt))", 1 - e.n_opt.slope);
  if (boot) out += fmt::format("; {:.0f}% interval [{:.4f}, {:.4f}]", 100 * options.level, 1 - boot->a.hi, 1 - boot->a.lo);
  out += fmt::format("\nL_opt = {:.6g} C^{:.5f}{} (power law, R^2 {:.4f})\n", std::exp(e.l_opt.intercept), e.l_opt.slope,
                     boot ? band(boot->l_slope, "{:.5f}") : "", e.l_opt.r2);
  if (e.loss_law.fitted)
    out += fmt::format("L_opt = E + A C^-gamma: E = {:.6g}, A = {:.6g}, gamma = {:.5f} (used for the loss below)\n",
                       e.loss_law.E, e.loss_law.A, e.loss_law.gamma);
  if (boot)
    out += fmt::format("({} bootstrap resamples of the runs, {:.2f} s; {} without an envelope left out)\n",
                       boot->replicates, boot->seconds, boot->failed);
  for (std::size_t k = 0; k < at.size(); ++k) {
    const double C = at[k], N = e.N_at(C);
    out += fmt::format("  C = {:.3g}: N_opt = {:.4g}{}, D_opt = {:.4g}, loss {:.4f}{}\n", C, N,
                       boot ? band(boot->N_at[k]) : "", C / (6 * N), e.L_at(C),
                       boot && !e.loss_law.fitted ? band(boot->L_at[k], "{:.4f}") : "");
  }
  return out;
}

}  // namespace scalinglab::fit
