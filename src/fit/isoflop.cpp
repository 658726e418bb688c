// Approach 2: IsoFLOP slices (trimmed to their near-minimum runs), parabola minima, log-log
// regressions, the saturating law of the minimum loss; the within-slice bootstrap.
#include "scalinglab/fit/isoflop.hpp"

#include <Eigen/Dense>
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/scaling_law.hpp"

namespace scalinglab::fit {

namespace {

std::string budget_text(double C) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", C);
  return buf;
}

std::string percent_text(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", 100 * fraction);
  return buf;
}

// A slice whose parabola's minimum is not a loss its runs make plausible: not positive, or below the
// lowest loss of the runs fitted by more than half their spread. (A parabola through a smooth
// minimum sampled at a few sizes lies a little below the lowest of them, a small fraction of the
// spread: on the Llama 3 slices at most 2%.) Empty when plausible.
std::string implausible_minimum(const IsoflopSlice& s, const std::vector<double>& loss,
                                const std::vector<double>& weight) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::size_t runs = 0;
  for (std::size_t i = 0; i < loss.size(); ++i) {
    if (!weight.empty() && !(weight[i] > 0)) continue;
    lo = std::min(lo, loss[i]);
    hi = std::max(hi, loss[i]);
    ++runs;
  }
  const bool negative = !(s.L_opt > 0), far = s.L_opt < lo - 0.5 * (hi - lo);
  if (!negative && !far) return "";
  std::string out = fmt::format(
      "IsoFLOP slice C = {}: the parabola's minimum, loss {:.4g}, is {} the losses of its {} runs ({:.4g} to {:.4g})",
      budget_text(s.C), s.L_opt, negative ? "not positive and far below" : "far below", runs, lo, hi);
  if (s.log_loss) return out + ": an extrapolation its runs do not support; add runs around the minimum";
  if (!negative)
    return out +
           ": an extrapolation its runs do not support; add runs around the minimum, or, if the losses span "
           "decades, fit log loss with --log-loss";
  return out +
         " (its log is undefined: the frontier's loss from the minima is NaN): a parabola in the loss does not "
         "describe this slice (losses spanning decades, a sharp minimum?); fit it to log loss with --log-loss";
}

}  // namespace

Regression regress(const std::vector<double>& x, const std::vector<double>& y) {
  Regression r;
  const std::size_t n = x.size();
  if (n < 2) return r;
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) return r;
  r.slope = sxy / sxx;
  r.intercept = my - r.slope * mx;
  const double ss_res = std::max(0.0, syy - r.slope * sxy);
  r.r2 = syy > 0 ? 1 - ss_res / syy : 1.0;
  r.slope_se = n > 2 ? std::sqrt(ss_res / static_cast<double>(n - 2) / sxx) : std::numeric_limits<double>::quiet_NaN();
  return r;
}

bool slice_minimum(const std::vector<double>& log_N, const std::vector<double>& loss, const std::vector<double>& weight,
                   IsoflopSlice& s, std::string& why, bool log_loss) {
  const std::size_t n = log_N.size();
  std::vector<double> distinct;
  for (std::size_t i = 0; i < n; ++i)
    if (weight.empty() || weight[i] > 0) distinct.push_back(log_N[i]);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 3) {
    why = "fewer than 3 distinct model sizes (" + std::to_string(distinct.size()) + ")";
    return false;
  }
  // Weighted least squares for loss (or log loss) = c0 + c1 t + c2 t^2, t = log N - centre (for
  // conditioning).
  const double centre = 0.5 * (distinct.front() + distinct.back());
  Eigen::Matrix3d A = Eigen::Matrix3d::Zero();
  Eigen::Vector3d rhs = Eigen::Vector3d::Zero();
  for (std::size_t i = 0; i < n; ++i) {
    const double w = weight.empty() ? 1.0 : weight[i];
    if (w == 0) continue;
    const double t = log_N[i] - centre;
    const Eigen::Vector3d phi(1.0, t, t * t);
    A += w * phi * phi.transpose();
    rhs += w * (log_loss ? std::log(loss[i]) : loss[i]) * phi;
  }
  const Eigen::Vector3d c = A.ldlt().solve(rhs);
  s.log_N_min = distinct.front();
  s.log_N_max = distinct.back();
  s.centre = centre;
  s.c0 = c[0];
  s.c1 = c[1];
  s.curvature = c[2];
  s.log_loss = log_loss;
  if (!(c[2] > 0)) {
    why = "the parabola opens downwards (no minimum)";
    return false;
  }
  const double t_star = -c[1] / (2 * c[2]);
  const double x_star = centre + t_star;
  if (x_star < s.log_N_min || x_star > s.log_N_max) {
    why = "its minimum, at N = " + budget_text(std::exp(x_star)) + ", lies outside the sizes run (" +
          budget_text(std::exp(s.log_N_min)) + " to " + budget_text(std::exp(s.log_N_max)) + ")";
    return false;
  }
  s.N_opt = std::exp(x_star);
  s.D_opt = s.C / (6 * s.N_opt);
  s.position = (x_star - s.log_N_min) / (s.log_N_max - s.log_N_min);
  const double vertex = c[0] + c[1] * t_star + c[2] * t_star * t_star;
  s.L_opt = log_loss ? std::exp(vertex) : vertex;
  return true;
}

double IsoflopFit::N_at(double C) const { return std::exp(n_opt.intercept + n_opt.slope * std::log(C)); }
double IsoflopFit::D_at(double C) const { return std::exp(d_opt.intercept + d_opt.slope * std::log(C)); }
double IsoflopFit::L_at_power(double C) const { return std::exp(l_opt.intercept + l_opt.slope * std::log(C)); }
double IsoflopFit::L_at(double C) const {
  return loss_law.fitted ? loss_law.E + loss_law.A * std::exp(-loss_law.gamma * std::log(C)) : L_at_power(C);
}

std::vector<double> trim_weights(const std::vector<double>& loss, const std::vector<double>& weight, double trim) {
  if (!(trim > 0)) return weight;
  double lowest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < loss.size(); ++i)
    if (weight.empty() || weight[i] > 0) lowest = std::min(lowest, loss[i]);
  std::vector<double> w(loss.size());
  for (std::size_t i = 0; i < loss.size(); ++i) {
    const double wi = weight.empty() ? 1.0 : weight[i];
    w[i] = loss[i] > (1 + trim) * lowest ? 0.0 : wi;
  }
  return w;
}

SaturatingLoss fit_saturating_loss(const std::vector<IsoflopSlice>& slices, const std::vector<std::vector<double>>* starts) {
  SaturatingLoss out;
  if (slices.size() < 4) {
    out.note = "not fitted: L_opt = E + A C^-gamma has 3 parameters and needs at least 4 slices (" +
               std::to_string(slices.size()) + " here); the frontier's loss comes from the power law";
    return out;
  }
  // C relative to the slices' geometric mean, so that log A and gamma are not nearly collinear.
  double log_ref = 0;
  for (const auto& s : slices) log_ref += std::log(s.C);
  log_ref /= static_cast<double>(slices.size());
  std::vector<double> x, L;
  for (const auto& s : slices) {
    x.push_back(std::exp(std::log(s.C) - log_ref));
    L.push_back(s.L_opt);
  }
  const ScalingLaw& law = scaling_law("saturating");
  FitOptions fo;
  fo.delta = std::numeric_limits<double>::infinity();  // least squares in log space
  fo.threads = 1;                                      // 60 tiny descents
  try {
    const LawData data = make_law_data(law, x, {}, L);
    const LawFit f = starts ? fit_law_from(law, data, fo, *starts) : fit_law(law, data, fo);
    out.starts = {f.theta};
    for (std::size_t k = 0; k < f.ranked_starts.size() && k < 4; ++k) out.starts.push_back(f.ranked_starts[k]);
    out.E = f.value("E");
    out.gamma = f.value("a");
    out.A = std::exp(std::log(f.value("A")) + out.gamma * log_ref);
    out.rmse = f.residuals.rmse;
    out.fitted = std::isfinite(out.E) && std::isfinite(out.A) && std::isfinite(out.gamma);
    if (!out.fitted) out.note = "not fitted: the fit did not reach finite parameters; the frontier's loss comes from the power law";
  } catch (const std::exception& e) {  // too few points, or no start reached a finite objective
    out.note = std::string("not fitted: ") + e.what() + "; the frontier's loss comes from the power law";
  }
  return out;
}

std::vector<std::vector<std::size_t>> group_budgets(const std::vector<double>& C, double tolerance) {
  std::vector<std::size_t> order(C.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return C[a] < C[b]; });
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (groups.empty() || C[order[k]] > C[groups.back().front()] * (1 + tolerance)) groups.emplace_back();
    groups.back().push_back(order[k]);
  }
  return groups;
}

std::vector<std::vector<std::size_t>> group_by_label(const std::vector<double>& labels) {
  std::vector<std::size_t> order(labels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return labels[a] < labels[b]; });
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (groups.empty() || labels[order[k]] != labels[groups.back().front()]) groups.emplace_back();
    groups.back().push_back(order[k]);
  }
  return groups;
}

IsoflopFit fit_isoflop(const std::vector<double>& C, const std::vector<double>& N, const std::vector<double>& loss,
                       const IsoflopOptions& options, const std::vector<int>& lines, const std::vector<double>& weight) {
  const std::size_t n = C.size();
  if (N.size() != n || loss.size() != n) throw InputError("isoflop: columns of different lengths");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string where = i < lines.size() ? "line " + std::to_string(lines[i]) : "point " + std::to_string(i + 1);
    for (auto [v, name] : {std::pair{C[i], "C"}, std::pair{N[i], "N"}, std::pair{loss[i], "loss"}})
      if (!(v > 0) || !std::isfinite(v))
        throw InputError(where + ": " + name + " = " + std::to_string(v) + " (IsoFLOP fits need positive, finite values)");
  }
  if (!(options.group_tolerance >= 0) || !std::isfinite(options.group_tolerance))
    throw InputError(fmt::format("--group-tolerance {:g}: give a relative distance, finite and 0 or more (0.1: within 10%)",
                                 options.group_tolerance));
  if (!(options.trim >= 0) || !std::isfinite(options.trim))
    throw InputError("isoflop: trim = " + std::to_string(options.trim) + " (give a fraction >= 0, e.g. 0.05 for 5%)");
  const bool by_label = !options.budget_labels.empty();
  if (by_label && options.budget_labels.size() != n)
    throw InputError("isoflop: " + std::to_string(options.budget_labels.size()) + " budget labels for " +
                     std::to_string(n) + " runs (give one per run)");
  for (std::size_t i = 0; by_label && i < n; ++i)
    if (!std::isfinite(options.budget_labels[i]))
      throw InputError((i < lines.size() ? "line " + std::to_string(lines[i]) : "point " + std::to_string(i + 1)) +
                       ": budget label is not a finite number");
  IsoflopFit fit;
  fit.options = options;
  fit.runs = n;
  for (const auto& group : by_label ? group_by_label(options.budget_labels) : group_budgets(C, options.group_tolerance)) {
    IsoflopSlice s;
    double log_c = 0;
    std::vector<double> x, y, w;
    for (const std::size_t i : group) {
      s.rows.push_back(i);
      log_c += std::log(C[i]);
      x.push_back(std::log(N[i]));
      y.push_back(loss[i]);
      if (!weight.empty()) w.push_back(weight[i]);
    }
    s.points = s.rows.size();
    s.C = std::exp(log_c / static_cast<double>(s.points));
    w = trim_weights(y, w, options.trim);
    for (std::size_t k = 0; k < w.size(); ++k)
      if (w[k] == 0 && (weight.empty() || weight[group[k]] > 0)) s.trimmed_rows.push_back(group[k]);
    s.trimmed = s.trimmed_rows.size();
    std::string why;
    if (slice_minimum(x, y, w, s, why, options.log_loss)) {
      fit.slices.push_back(s);
      if (const std::string note = implausible_minimum(s, y, w); !note.empty()) fit.warnings.push_back(note);
    } else {
      if (s.trimmed > 0)
        why += " after trimming " + std::to_string(s.trimmed) + " of its " + std::to_string(s.points) +
               " runs (loss more than " + percent_text(options.trim) + " above its lowest; loosen --trim)";
      const std::string message = "IsoFLOP slice C = " + budget_text(s.C) + " (" + std::to_string(s.points) + " runs): " + why;
      if (!options.skip_bad_slices) {
        // Too few sizes in a slice usually means the runs were grouped wrongly, not run wrongly.
        const bool few_sizes = why.rfind("fewer than 3 distinct", 0) == 0;
        const std::string hint =
            !few_sizes ? " (add runs around the minimum, or skip such slices)"
            : by_label ? " (the slices are the values of the --budget column: check that it names the planned budget "
                         "of each run, or skip such slices)"
                       : fmt::format(" (runs share a slice when their C is within --group-tolerance {:g} of each other: "
                                     "if the runs of one planned budget scatter in C, group them by a column of "
                                     "nominal budgets with --budget COL, check how C is given (--C, or --flops for "
                                     "a formula), or skip such slices)", options.group_tolerance);
        throw InputError(message + hint);
      }
      fit.skipped.push_back(message);
      fit.skipped_runs += s.points;
    }
  }
  if (fit.slices.size() < 2)
    throw InputError("isoflop: " + std::to_string(fit.slices.size()) +
                     " usable slice(s); at least 2 compute budgets with interior minima are needed");
  // Labels need not follow C; the regressions do not care, but reports read better by C.
  std::stable_sort(fit.slices.begin(), fit.slices.end(), [](const auto& a, const auto& b) { return a.C < b.C; });
  if (!fit.skipped.empty())
    fit.warnings.push_back(fmt::format("--skip-bad-slices left out {} of {} slices ({} of {} runs); the frontier rests "
                                       "on the other {} slices", fit.skipped.size(), fit.skipped.size() + fit.slices.size(),
                                       fit.skipped_runs, fit.runs, fit.slices.size()));
  if (fit.slices.size() == 2)
    fit.warnings.push_back("Approach 2 rests on 2 slices: a line through 2 points is exact (R^2 1, no regression "
                           "standard error), so the exponents' only error estimate is the bootstrap's, which sees the "
                           "noise of the 2 minima but not the scatter of minima about the line; add compute budgets");
  for (const auto& s : fit.slices)
    if (s.off_centre())
      fit.warnings.push_back("IsoFLOP slice C = " + budget_text(s.C) + ": the minimum, N = " + budget_text(s.N_opt) +
                             ", lies at " + percent_text(s.position) + " of the sizes fitted (in log N, " +
                             budget_text(std::exp(s.log_N_min)) + " to " + budget_text(std::exp(s.log_N_max)) +
                             "): the sampling is off-centre and the parabola's minimum is an extrapolation-prone "
                             "estimate; centre the sizes run at this budget on it");
  std::vector<double> lc, ln, ld, ll;
  for (const auto& s : fit.slices) {
    lc.push_back(std::log(s.C));
    ln.push_back(std::log(s.N_opt));
    ld.push_back(std::log(s.D_opt));
    ll.push_back(std::log(s.L_opt));
  }
  fit.n_opt = regress(lc, ln);
  fit.d_opt = regress(lc, ld);
  fit.l_opt = regress(lc, ll);
  fit.loss_law = fit_saturating_loss(fit.slices);
  if (fit.loss_law.fitted) {
    double lowest = std::numeric_limits<double>::infinity();
    for (const auto& s : fit.slices) lowest = std::min(lowest, s.L_opt);
    char buf[160];
    if (fit.loss_law.E >= lowest) {
      std::snprintf(buf, sizeof buf, "the fitted E = %.6g is at or above the lowest L_opt (%.6g)", fit.loss_law.E, lowest);
      fit.warnings.push_back(std::string(buf) + ": L_opt = E + A C^-gamma does not describe these minima "
                             "(an irreducible loss above a measured one); the frontier's loss from it is doubtful, compare "
                             "the power law's");
    }
    if (!(fit.loss_law.gamma > 0)) {
      std::snprintf(buf, sizeof buf, "the fitted gamma = %.6g is not positive", fit.loss_law.gamma);
      fit.warnings.push_back(std::string(buf) + ": by the saturating law the minimum loss does not fall with compute");
    }
  }
  return fit;
}

IsoflopBootstrap bootstrap_isoflop(const IsoflopFit& fit, const std::vector<double>& N, const std::vector<double>& loss,
                                   const BootstrapOptions& boot,
                                   const std::vector<double>& budgets, int threads, const std::vector<double>& weight) {
  check_bootstrap_options(boot);
  if (boot.replicates < 2) throw InputError("--bootstrap: at least 2 refits are needed");
  const auto t0 = std::chrono::steady_clock::now();
  struct Rep {
    bool ok = false;
    int slices_lost = 0;
    double a = 0, b = 0, p = 0;
    IsoflopReplicate fit;
    SaturatingLoss loss_law;
    std::vector<double> n_at, d_at, l_at, l_power_at;
  };
  const bool saturating = fit.loss_law.fitted;
  std::vector<Rep> reps(static_cast<std::size_t>(boot.replicates));
  parallel_for(reps.size(), threads, [&](std::size_t r, int) {
    Stream stream(stream_key(boot.seed, stable_hash("isoflop-bootstrap"), r));
    std::vector<double> lc, ln, ld, ll;
    std::vector<IsoflopSlice> kept;
    for (const auto& slice : fit.slices) {
      const std::size_t m = slice.rows.size();
      std::vector<double> x(m), y(m), w(m, 0.0);
      for (std::size_t k = 0; k < m; ++k) {
        x[k] = std::log(N[slice.rows[k]]);
        y[k] = loss[slice.rows[k]];
      }
      for (std::size_t k = 0; k < m; ++k) w[stream.below(m)] += 1.0;
      if (!weight.empty())
        for (std::size_t k = 0; k < m; ++k) w[k] *= weight[slice.rows[k]];  // counts times the user's weights
      w = trim_weights(y, w, fit.options.trim);  // the same rule, on this resample's lowest loss
      IsoflopSlice s;
      s.C = slice.C;
      std::string why;
      if (!slice_minimum(x, y, w, s, why, fit.options.log_loss)) {
        ++reps[r].slices_lost;  // this resample of the slice has no interior minimum: leave it out
        continue;
      }
      lc.push_back(std::log(s.C));
      ln.push_back(std::log(s.N_opt));
      ld.push_back(std::log(s.D_opt));
      // A parabola's minimum can fall to 0 or below on a wild resample: no log, no power law.
      ll.push_back(s.L_opt > 0 ? std::log(s.L_opt) : std::numeric_limits<double>::quiet_NaN());
      kept.push_back(s);
    }
    if (lc.size() < 2) return;
    const Regression rn = regress(lc, ln), rd = regress(lc, ld), rl = regress(lc, ll);
    Rep& rep = reps[r];
    rep.ok = true;
    rep.a = rn.slope;
    rep.b = rd.slope;
    rep.p = rl.slope;
    // Not fitted (NaN) below 4 slices; refitted from the full fit's optimum and best starts (the
    // law's grid for every replicate would cost 500 times as much for the same optimum).
    if (saturating) rep.loss_law = fit_saturating_loss(kept, &fit.loss_law.starts);
    rep.fit = {rn, rd, rl, rep.loss_law};
    for (double budget : budgets) {
      const double lb = std::log(budget);
      rep.n_at.push_back(std::exp(rn.intercept + rn.slope * lb));
      rep.d_at.push_back(std::exp(rd.intercept + rd.slope * lb));
      rep.l_power_at.push_back(std::exp(rl.intercept + rl.slope * lb));
      rep.l_at.push_back(!saturating ? rep.l_power_at.back()
                         : rep.loss_law.fitted ? rep.loss_law.E + rep.loss_law.A * std::exp(-rep.loss_law.gamma * lb)
                                               : std::numeric_limits<double>::quiet_NaN());
    }
  });
  IsoflopBootstrap out;
  out.replicates = boot.replicates;
  out.saturating = saturating;
  std::vector<double> as, bs, ps, Es, As, gs;
  const std::size_t nb = budgets.size();
  std::vector<std::vector<double>> n_at(nb), d_at(nb), l_at(nb), l_power_at(nb);
  auto keep = [](std::vector<double>& v, double x) {
    if (std::isfinite(x)) v.push_back(x);
  };
  for (const auto& rep : reps) {
    out.slices_lost += rep.slices_lost;
    if (!rep.ok) {
      ++out.failed;
      continue;
    }
    out.fits.push_back(rep.fit);
    as.push_back(rep.a);
    bs.push_back(rep.b);
    keep(ps, rep.p);
    if (rep.loss_law.fitted) {
      ++out.loss_law_fits;
      Es.push_back(rep.loss_law.E), As.push_back(rep.loss_law.A), gs.push_back(rep.loss_law.gamma);
    }
    for (std::size_t k = 0; k < nb; ++k) {
      keep(n_at[k], rep.n_at[k]);
      keep(d_at[k], rep.d_at[k]);
      keep(l_at[k], rep.l_at[k]);
      keep(l_power_at[k], rep.l_power_at[k]);
    }
  }
  out.a = summarise_sample(as, boot.level);
  out.b = summarise_sample(bs, boot.level);
  out.p = summarise_sample(ps, boot.level);
  out.E = summarise_sample(Es, boot.level);
  out.A = summarise_sample(As, boot.level);
  out.gamma = summarise_sample(gs, boot.level);
  for (std::size_t k = 0; k < nb; ++k) {
    out.n_at.push_back(summarise_sample(n_at[k], boot.level));
    out.d_at.push_back(summarise_sample(d_at[k], boot.level));
    out.l_at.push_back(summarise_sample(l_at[k], boot.level));
    out.l_power_at.push_back(summarise_sample(l_power_at[k], boot.level));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

IsoflopBands isoflop_bands(const IsoflopBootstrap& boot, double C, double level) {
  std::vector<double> n, d, l;
  const double lc = std::log(C);
  for (const auto& f : boot.fits) {
    n.push_back(std::exp(f.n_opt.intercept + f.n_opt.slope * lc));
    d.push_back(std::exp(f.d_opt.intercept + f.d_opt.slope * lc));
    l.push_back(!boot.saturating ? std::exp(f.l_opt.intercept + f.l_opt.slope * lc)
                : f.loss_law.fitted ? f.loss_law.E + f.loss_law.A * std::exp(-f.loss_law.gamma * lc)
                                    : std::numeric_limits<double>::quiet_NaN());
  }
  return {summarise_sample(n, level), summarise_sample(d, level), summarise_sample(l, level)};
}

}  // namespace scalinglab::fit
