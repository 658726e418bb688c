// The fitting protocols as named methods (see the header for each one's reading).
#include "scalinglab/fit/fit_method.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/fit/frontier.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/law_expression.hpp"
#include "scalinglab/fit/parametric_fit.hpp"
#include "scalinglab/lab/param.hpp"

namespace scalinglab::fit {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* kKnown = "approach1, approach2[:trim=F], approach3[:delta=X], kaplan[:delta=X], porian[:trim=F], bnsl, law:EXPR";

double option_number(const std::string& method, const std::string& key, std::string value) {
  bool percent = !value.empty() && value.back() == '%';
  if (percent) value.pop_back();
  const auto v = parse_number(value);
  if (!v || std::isnan(*v)) throw InputError("method '" + method + "': " + key + " = '" + value + "' is not a number");
  return percent ? *v / 100 : *v;
}

Estimate interval_of(double value, std::vector<double> sample, double level) {
  Estimate e;
  e.value = value;
  std::erase_if(sample, [](double x) { return !std::isfinite(x); });
  if (sample.size() >= 10) {  // fewer finite replicates than that give no honest interval
    const Interval iv = summarise_sample(std::move(sample), level);
    e.lo = iv.lo;
    e.hi = iv.hi;
  }
  return e;
}

// D from N on the budget: D = C / (6 N), so D's interval is N's reversed.
Estimate data_from(const Estimate& N, double C) {
  Estimate d;
  d.value = C / (6 * N.value);
  if (N.has_interval()) d.lo = C / (6 * N.hi), d.hi = C / (6 * N.lo);
  return d;
}

// Multinomial counts within each slice: the runs of a budget are resampled among themselves.
std::vector<double> slice_resample(const IsoflopFit& iso, std::size_t rows, std::mt19937_64& rng) {
  std::vector<double> w(rows, 0.0);
  for (const auto& s : iso.slices) {
    std::uniform_int_distribution<std::size_t> pick(0, s.rows.size() - 1);
    for (std::size_t k = 0; k < s.rows.size(); ++k) w[s.rows[pick(rng)]] += 1;
  }
  return w;
}

BootstrapOptions bootstrap_options(const MethodOptions& o) {
  BootstrapOptions bo;
  bo.replicates = o.bootstrap;
  bo.level = o.level;
  bo.seed = o.seed;
  bo.starts = o.bootstrap_starts;  // read by the law fits' refits only
  return bo;
}

IsoflopOptions isoflop_options(const ProtocolTable& t, double trim) {
  IsoflopOptions io;
  io.skip_bad_slices = true;
  io.trim = trim;
  io.budget_labels = t.budget;  // slices are the planned budgets, whatever rounding did to each run's C
  return io;
}

MethodResult approach2(const MethodSpec& m, const ProtocolTable& t, const std::vector<double>& budgets,
                       const MethodOptions& o) {
  MethodResult r;
  const IsoflopFit iso = fit_isoflop(t.C, t.N, t.loss, isoflop_options(t, m.trim));
  IsoflopBootstrap boot;
  if (o.bootstrap > 0) {
    boot = bootstrap_isoflop(iso, t.N, t.loss, bootstrap_options(o), budgets, o.threads);
  }
  for (std::size_t k = 0; k < budgets.size(); ++k) {
    FrontierPrediction p;
    p.C = budgets[k];
    p.N.value = iso.N_at(p.C);
    p.D.value = iso.D_at(p.C);
    p.L.value = iso.L_at(p.C);
    if (o.bootstrap > 0 && boot.replicates - boot.failed >= 10) {
      p.N.lo = boot.n_at[k].lo, p.N.hi = boot.n_at[k].hi;
      p.D.lo = boot.d_at[k].lo, p.D.hi = boot.d_at[k].hi;
      // With the saturating law, replicates that kept fewer than 4 slices have no loss: too few
      // fitted replicates give no interval, as in interval_of.
      if (!iso.loss_law.fitted || boot.loss_law_fits >= 10) p.L.lo = boot.l_at[k].lo, p.L.hi = boot.l_at[k].hi;
    }
    r.at.push_back(p);
  }
  r.ok = true;
  r.bootstrap_total = o.bootstrap > 0 ? boot.replicates : 0;
  r.bootstrap_failed = o.bootstrap > 0 ? boot.failed : 0;
  if (!r.at.empty() && !std::isfinite(r.at.front().L.value)) {
    std::size_t negative = 0;
    for (const auto& s : iso.slices) negative += s.L_opt > 0 ? 0 : 1;
    r.L_note = negative > 0 ? fmt::format("{} of {} slices' parabola minima are at or below zero (a parabola in the loss, "
                                          "not its log, on a steep slice), so no loss frontier is fitted",
                                          negative, iso.slices.size())
                            : "no loss frontier: " + iso.loss_law.note;
  }
  return r;
}

MethodResult law_frontier(const ScalingLaw& law, const MethodSpec& m, const ProtocolTable& t,
                          const std::vector<double>& budgets, const MethodOptions& o);

// Approach 1 with intervals from the case bootstrap of runs (whole curves resampled).
MethodResult approach1(const ProtocolTable& t, const std::vector<double>& budgets, const MethodOptions& o) {
  MethodResult r;
  if (t.curves.size() == 0) {
    r.note = "Approach 1 needs learning curves; this table has none";
    return r;
  }
  const Envelope e = fit_envelope(t.curves);
  int runs = 0;
  for (int id : t.curves.run) runs = std::max(runs, id + 1);
  std::vector<std::vector<double>> sn(budgets.size()), sl(budgets.size());
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + 101);
  std::uniform_int_distribution<int> pick(0, std::max(0, runs - 1));
  for (int b = 0; b < o.bootstrap; ++b) {
    std::vector<double> w(static_cast<std::size_t>(runs), 0.0);
    for (int k = 0; k < runs; ++k) w[static_cast<std::size_t>(pick(rng))] += 1;
    ++r.bootstrap_total;
    try {
      const Envelope be = fit_envelope(t.curves, w, 60, false);
      for (std::size_t k = 0; k < budgets.size(); ++k) sn[k].push_back(be.N_at(budgets[k])), sl[k].push_back(be.L_at(budgets[k]));
    } catch (const InputError&) {
      ++r.bootstrap_failed;
    }
  }
  for (std::size_t k = 0; k < budgets.size(); ++k) {
    FrontierPrediction p;
    p.C = budgets[k];
    p.N = interval_of(e.N_at(p.C), sn[k], o.level);
    p.D = data_from(p.N, p.C);
    // The loss's interval from the power law (refitting the saturating law per replicate is costly);
    // the point estimate uses the saturating law when fitted, so its interval is left out then.
    p.L = e.loss_law.fitted ? Estimate{e.L_at(p.C)} : interval_of(e.L_at(p.C), sl[k], o.level);
    r.at.push_back(p);
  }
  r.ok = std::isfinite(r.at.front().N.value);
  if (!r.ok) r.note = "Approach 1: the envelope gives no finite N_opt";
  return r;
}

MethodResult two_input_law(const std::string& law_name, const MethodSpec& m, const ProtocolTable& t,
                           const std::vector<double>& budgets, const MethodOptions& o) {
  return law_frontier(scaling_law(law_name), m, t, budgets, o);
}

// The frontier of a law at C: the closed form for the built-in laws, else a scan of log N over
// [1, C/6] (D >= 1) refined by golden sections; NaN when the minimum is at the scan's edge.
Allocation frontier_at(const ScalingLaw& law, const std::vector<double>& theta, double C) {
  if (law.has_frontier) return optimal_allocation(law, theta, C);
  auto loss = [&](double logN) {
    const double N = std::exp(logN), D = C / (6 * N);
    std::vector<double> in;
    for (const auto& name : law.inputs) in.push_back(name == "N" ? N : name == "D" ? D : C);
    return law_log_predict_at(law, theta, in);
  };
  const double lo = 0, hi = std::log(C / 6);
  constexpr int kScan = 240;
  int best = -1;
  double best_v = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= kScan; ++i) {
    const double v = loss(lo + (hi - lo) * i / kScan);
    if (v < best_v) best_v = v, best = i;
  }
  Allocation a;
  a.C = C;
  if (best <= 0 || best >= kScan) {
    a.N = a.D = a.L = kNaN;
    return a;
  }
  double x0 = lo + (hi - lo) * (best - 1) / kScan, x1 = lo + (hi - lo) * (best + 1) / kScan;
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 60; ++it) {
    const double a1 = x1 - g * (x1 - x0), b1 = x0 + g * (x1 - x0);
    (loss(a1) < loss(b1) ? x1 : x0) = (loss(a1) < loss(b1) ? b1 : a1);
  }
  const double x = (x0 + x1) / 2;
  a.N = std::exp(x);
  a.D = C / (6 * a.N);
  a.L = std::exp(loss(x));
  return a;
}

MethodResult law_frontier(const ScalingLaw& law, const MethodSpec& m, const ProtocolTable& t,
                          const std::vector<double>& budgets, const MethodOptions& o) {
  MethodResult r;
  FitOptions fo;
  fo.delta = m.delta;
  fo.threads = o.threads;
  fo.screen_iterations = o.screen_iterations;
  const LawData data = law.inputs == std::vector<std::string>{"N", "D"}
                           ? make_law_data(law, t.N, t.D, t.loss)
                           : law_data_from(law, {{"N", t.N}, {"D", t.D}, {"C", t.C}}, t.loss);
  const LawFit f = fit_law(law, data, fo);
  Bootstrap boot;
  if (o.bootstrap > 0) {
    boot = bootstrap_law_fit(f, data, fo, bootstrap_options(o));
  }
  // A replicate whose refit has no frontier (alpha or beta <= 0 throws in the closed form) is left
  // out of the intervals and counted; it does not take the prediction with it.
  std::vector<char> replicate_failed(boot.thetas.size(), 0);
  for (double C : budgets) {
    const Allocation a = frontier_at(law, f.theta, C);
    std::vector<double> sn, sd, sl;
    for (std::size_t b = 0; b < boot.thetas.size(); ++b) {
      try {
        const Allocation x = frontier_at(law, boot.thetas[b], C);
        if (!std::isfinite(x.N)) replicate_failed[b] = 1;
        sn.push_back(x.N), sd.push_back(x.D), sl.push_back(x.L);
      } catch (const InputError&) {
        replicate_failed[b] = 1;
      }
    }
    FrontierPrediction p;
    p.C = C;
    p.N = interval_of(a.N, sn, o.level);
    p.D = interval_of(a.D, sd, o.level);
    p.L = interval_of(a.L, sl, o.level);
    r.at.push_back(p);
  }
  r.ok = std::isfinite(r.at.front().N.value);
  if (!r.ok) r.note = "the fitted law has no interior compute-optimal size at the first budget asked";
  r.bootstrap_total = static_cast<int>(boot.thetas.size());
  for (char f : replicate_failed) r.bootstrap_failed += f;
  return r;
}

struct WeightedLine {
  double slope = kNaN, intercept = kNaN;
};

WeightedLine weighted_line(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w) {
  double sw = 0, sx = 0, sy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sw += w[i], sx += w[i] * x[i], sy += w[i] * y[i];
  WeightedLine l;
  if (!(sw > 0)) return l;
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sxx += w[i] * (x[i] - mx) * (x[i] - mx), sxy += w[i] * (x[i] - mx) * (y[i] - my);
  if (!(sxx > 0)) return l;
  l.slope = sxy / sxx;
  l.intercept = my - l.slope * mx;
  return l;
}

// The slices' minima refitted on resamples within slices: each replicate's (log C -> log N_opt,
// L_opt) for the slices that kept an interior minimum, keyed by the slice's budget.
std::vector<std::map<double, std::pair<double, double>>> resampled_minima(const IsoflopFit& iso,
                                                                          const ProtocolTable& t, int replicates,
                                                                          std::uint64_t seed) {
  std::vector<std::map<double, std::pair<double, double>>> out;
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 17);
  for (int b = 0; b < replicates; ++b) {
    const std::vector<double> w = slice_resample(iso, t.size(), rng);
    std::map<double, std::pair<double, double>> minima;
    for (const auto& s : iso.slices) {
      std::vector<double> logn, loss, ws;
      for (std::size_t row : s.rows) logn.push_back(std::log(t.N[row])), loss.push_back(t.loss[row]), ws.push_back(w[row]);
      ws = trim_weights(loss, ws, iso.options.trim);
      IsoflopSlice rs;
      std::string why;
      if (slice_minimum(logn, loss, ws, rs, why)) minima[s.C] = {std::log(rs.N_opt), rs.L_opt};
    }
    out.push_back(std::move(minima));
  }
  return out;
}

MethodResult porian(const MethodSpec& m, const ProtocolTable& t, const std::vector<double>& budgets,
                    const MethodOptions& o) {
  MethodResult r;
  const IsoflopFit iso = fit_isoflop(t.C, t.N, t.loss, isoflop_options(t, m.trim));
  if (iso.slices.size() < 4) {
    r.note = fmt::format("porian needs 4 slices with an interior minimum for L_opt = E + A C^-gamma ({} here)",
                         iso.slices.size());
    return r;
  }
  // Each slice's weight: the inverse bootstrap variance of its log N_opt (at least 50 resamples,
  // whatever the intervals use, so that the weights are not noise).
  const int reps = std::max(50, o.bootstrap);
  const auto minima = resampled_minima(iso, t, reps, o.seed);
  std::vector<double> x, y, w;
  std::vector<IsoflopSlice> kept;
  for (const auto& s : iso.slices) {
    std::vector<double> v;
    for (const auto& rep : minima)
      if (auto it = rep.find(s.C); it != rep.end()) v.push_back(it->second.first);
    if (v.size() < 10) continue;
    double mean = 0, var = 0;
    for (double e : v) mean += e;
    mean /= static_cast<double>(v.size());
    for (double e : v) var += (e - mean) * (e - mean);
    var /= static_cast<double>(v.size() - 1);
    x.push_back(std::log(s.C)), y.push_back(std::log(s.N_opt)), w.push_back(1 / std::max(var, 1e-8));
    kept.push_back(s);
  }
  if (kept.size() < 4) {
    r.note = "porian: fewer than 4 slices keep a minimum under resampling";
    return r;
  }
  const WeightedLine line = weighted_line(x, y, w);
  const SaturatingLoss loss = fit_saturating_loss(kept);
  std::vector<std::vector<double>> sn(budgets.size()), sl(budgets.size());
  if (o.bootstrap > 0)
    for (int b = 0; b < o.bootstrap; ++b) {
      std::vector<double> bx, by, bw;
      std::vector<IsoflopSlice> bs;
      for (std::size_t k = 0; k < kept.size(); ++k)
        if (auto it = minima[static_cast<std::size_t>(b)].find(kept[k].C); it != minima[static_cast<std::size_t>(b)].end()) {
          bx.push_back(x[k]), by.push_back(it->second.first), bw.push_back(w[k]);
          IsoflopSlice s = kept[k];
          s.L_opt = it->second.second;
          bs.push_back(s);
        }
      if (bs.size() < 4) continue;
      const WeightedLine bl = weighted_line(bx, by, bw);
      const SaturatingLoss bL = fit_saturating_loss(bs);
      for (std::size_t k = 0; k < budgets.size(); ++k) {
        sn[k].push_back(std::exp(bl.intercept + bl.slope * std::log(budgets[k])));
        sl[k].push_back(bL.fitted ? bL.E + bL.A * std::pow(budgets[k], -bL.gamma) : kNaN);
      }
    }
  for (std::size_t k = 0; k < budgets.size(); ++k) {
    FrontierPrediction p;
    p.C = budgets[k];
    p.N = interval_of(std::exp(line.intercept + line.slope * std::log(p.C)), sn[k], o.level);
    p.D = data_from(p.N, p.C);
    p.L = interval_of(loss.fitted ? loss.E + loss.A * std::pow(p.C, -loss.gamma) : iso.L_at_power(p.C), sl[k], o.level);
    r.at.push_back(p);
  }
  r.ok = std::isfinite(line.slope);
  if (!r.ok) r.note = "porian: the weighted regression of log N_opt on log C failed";
  return r;
}

MethodResult bnsl(const ProtocolTable& t, const std::vector<double>& budgets, const MethodOptions& o) {
  MethodResult r;
  const IsoflopFit iso = fit_isoflop(t.C, t.N, t.loss, isoflop_options(t, 0));
  const ScalingLaw& law = scaling_law("bnsl");
  std::vector<double> C, L;
  for (const auto& s : iso.slices)
    if (s.L_opt > 0) C.push_back(s.C), L.push_back(s.L_opt);  // a parabola's minimum can fall below 0
  if (C.size() < law.dims() + 1) {
    r.note = fmt::format("bnsl has {} parameters and needs {} slices with an interior, positive minimum ({} here)",
                         law.dims(), law.dims() + 1, C.size());
    return r;
  }
  FitOptions fo;
  fo.threads = o.threads;
  const LawData data = law_data_from(law, {{"x", C}}, L);
  const LawFit f = fit_law(law, data, fo);
  auto at = [&](const std::vector<double>& theta, double c) { return std::exp(law_log_predict_at(law, theta, {c})); };
  std::vector<std::vector<double>> sl(budgets.size());
  if (o.bootstrap > 0) {
    const auto minima = resampled_minima(iso, t, o.bootstrap, o.seed);
    std::vector<std::vector<double>> starts{f.theta};
    for (std::size_t k = 0; k < f.ranked_starts.size() && static_cast<int>(k) < o.bootstrap_starts; ++k)
      starts.push_back(f.ranked_starts[k]);
    for (const auto& rep : minima) {
      if (rep.size() < law.dims() + 1) continue;
      std::vector<double> bc, bl;
      for (const auto& [c, v] : rep)
        if (v.second > 0) bc.push_back(c), bl.push_back(v.second);
      if (bc.size() < law.dims() + 1) continue;
      try {
        const LawFit bf = fit_law_from(law, law_data_from(law, {{"x", bc}}, bl), fo, starts);
        for (std::size_t k = 0; k < budgets.size(); ++k) sl[k].push_back(at(bf.theta, budgets[k]));
      } catch (const InputError&) {
      }
    }
  }
  for (std::size_t k = 0; k < budgets.size(); ++k) {
    FrontierPrediction p;
    p.C = budgets[k];
    p.L = interval_of(at(f.theta, p.C), sl[k], o.level);
    r.at.push_back(p);
  }
  r.ok = true;
  r.note = "bnsl predicts the loss frontier only";
  return r;
}

// N_opt within [1, C/6]: at least one parameter, and at least one token (D = C / (6 N) >= 1). A
// closed form far from its data can leave it (Kaplan's predicted 4.5e16 parameters at C = 1e8).
void hold_to_budget(FrontierPrediction& p) {
  const double lo = 1, hi = p.C / 6;
  auto hold = [&](double& v) {
    if (!std::isfinite(v)) return false;
    if (v < lo) return v = lo, true;
    if (v > hi) return v = hi, true;
    return false;
  };
  const bool moved = hold(p.N.value);
  if (moved) {
    p.bounded = true;
    p.D.value = p.C / (6 * p.N.value);
  }
  if (p.N.has_interval()) {
    const bool lo_moved = hold(p.N.lo), hi_moved = hold(p.N.hi);
    if (lo_moved || hi_moved) p.D = {p.D.value, p.C / (6 * p.N.hi), p.C / (6 * p.N.lo)};
  }
}

}  // namespace

std::string not_applicable(const MethodSpec& m, std::size_t budgets, bool has_curves) {
  if (m.kind == "approach1" && !has_curves) return "the world emits no learning curves";
  if (m.kind == "bnsl" && budgets < 7)
    return fmt::format("BNSL's 6 parameters need 7 budgets, the design has {}", budgets);
  if (m.kind == "porian" && budgets < 4)
    return fmt::format("E + A C^-gamma needs 4 budgets, the design has {}", budgets);
  if ((m.kind == "approach2") && budgets < 2) return "a regression on log C needs 2 budgets";
  return "";
}

MethodSpec parse_method(const std::string& text) {
  MethodSpec m;
  m.name = text;
  if (text.rfind("law:", 0) == 0) {
    m.kind = "law";
    m.expression = text.substr(4);
    if (m.expression.find_first_not_of(" \t") == std::string::npos)
      throw InputError("method 'law:': give the law's expression after 'law:', e.g. law:E + A/N^a + B/D^b");
    expression_law(m.expression, {"N", "D", "C"});  // a syntax error is reported now, before any run
    return m;
  }
  const auto colon = text.find(':');
  m.kind = text.substr(0, colon);
  if (m.kind != "approach1" && m.kind != "approach2" && m.kind != "approach3" && m.kind != "kaplan" && m.kind != "porian" && m.kind != "bnsl")
    throw InputError("unknown method '" + text + "' (methods: " + kKnown + ")");
  if (colon == std::string::npos) return m;
  std::string rest = text.substr(colon + 1);
  std::size_t start = 0;
  while (start <= rest.size()) {
    const auto comma = rest.find(',', start);
    const std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError("method '" + text + "': expected KEY=VALUE, got '" + item + "'");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "delta" && (m.kind == "approach3" || m.kind == "kaplan")) {
      m.delta = option_number(text, key, value);
      if (!(m.delta > 0)) throw InputError("method '" + text + "': delta must be positive (inf: least squares)");
    } else if (key == "trim" && (m.kind == "approach2" || m.kind == "porian")) {
      m.trim = option_number(text, key, value);
      if (!(m.trim >= 0) || !std::isfinite(m.trim))
        throw InputError("method '" + text + "': trim must be a fraction from 0, e.g. 5% or 0.05");
    } else {
      throw InputError("method '" + text + "': '" + key + "' is not an option of " + m.kind + " (methods: " + kKnown + ")");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return m;
}

std::vector<std::string> default_methods() {
  return {"approach1", "approach2", "approach2:trim=5%", "approach3:delta=1e-3", "approach3:delta=inf", "porian", "kaplan", "bnsl"};
}

MethodResult apply_method(const MethodSpec& m, const ProtocolTable& t, const std::vector<double>& budgets,
                          const MethodOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  MethodResult r;
  try {
    if (m.kind == "approach1") r = approach1(t, budgets, o);
    else if (m.kind == "approach2") r = approach2(m, t, budgets, o);
    else if (m.kind == "approach3") r = two_input_law("chinchilla", m, t, budgets, o);
    else if (m.kind == "kaplan") r = two_input_law("kaplan", m, t, budgets, o);
    else if (m.kind == "porian") r = porian(m, t, budgets, o);
    else if (m.kind == "bnsl") r = bnsl(t, budgets, o);
    else if (m.kind == "law") {
      ExpressionLawOptions eo;
      eo.name = m.name;
      r = law_frontier(expression_law(m.expression, {"N", "D", "C"}, eo), m, t, budgets, o);
    } else {
      throw InputError("unknown method kind '" + m.kind + "'");
    }
  } catch (const InputError& e) {  // this table defeats the method (too few slices, a bad fit): say so
    r = MethodResult{};
    r.note = e.what();
  }
  if (r.ok) {
    for (auto& p : r.at) hold_to_budget(p);
    if (r.L_note.empty() && !r.at.empty() && !std::isfinite(r.at.front().L.value) && m.kind != "bnsl")
      r.L_note = "no loss frontier: a slice's parabola minimum is at or below zero, or its law did not fit";
  }
  if (!r.ok && m.trim > 0 && r.note.find("usable slice") != std::string::npos)
    r.note = fmt::format("trim={:g}% leaves fewer than 3 sizes within {:g}% of the lowest loss in too many slices: the "
                         "design's sizes are too far apart for this trim ({})",
                         100 * m.trim, 100 * m.trim, r.note);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace scalinglab::fit
