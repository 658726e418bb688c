// The truth slice at a target budget: run, extended, refined, made precise, reached out.
#include "truth_slice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::extrapolate {

using namespace fit;
using namespace protocol;

double Truth::loss_at(double n) const {
  const double x = std::log(n);
  if (!std::isfinite(x) || points.empty()) return kNaN;
  if (interior && x >= window_lo && x <= window_hi) return parabola.loss_at(n);
  if (x < std::log(points.front().N) || x > std::log(points.back().N)) return kNaN;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const double a = std::log(points[i].N), b = std::log(points[i + 1].N);
    if (x >= a && x <= b) return points[i].loss + (points[i + 1].loss - points[i].loss) * (b > a ? (x - a) / (b - a) : 0.0);
  }
  return kNaN;
}

double Truth::N_spread() const {
  if (!(N > 0) || !std::isfinite(N_lo) || !std::isfinite(N_hi)) return kNaN;
  return std::max(N_hi / N - 1, 1 - N_lo / N);
}

namespace {

// The minimum of a slice: a parabola in log N through the 5 points around the lowest mean (or,
// when noise bends those, through every point); false when the lowest mean is at an edge or
// neither parabola has its minimum inside the points it was fitted to.
bool window_minimum(const std::vector<TruthPoint>& pts, const std::vector<double>& loss, IsoflopSlice& s, double& lo,
                    double& hi) {
  const auto best = static_cast<std::size_t>(std::min_element(loss.begin(), loss.end()) - loss.begin());
  if (best == 0 || best + 1 == loss.size()) return false;
  for (std::size_t half : {std::size_t{2}, loss.size()}) {
    const std::size_t a = best >= half ? best - half : 0, b = std::min(loss.size() - 1, best + half);
    std::vector<double> x, y, wt;
    for (std::size_t i = a; i <= b; ++i) x.push_back(std::log(pts[i].N)), y.push_back(loss[i]), wt.push_back(1.0);
    std::string why;
    if (!slice_minimum(x, y, wt, s, why)) continue;
    lo = x.front(), hi = x.back();
    if (std::log(s.N_opt) >= lo && std::log(s.N_opt) <= hi) return true;
  }
  return false;
}

// Points of a new batch pooled into the slice: a size run before (after rounding) gets the new
// runs averaged in, weighted by their counts.
void merge(std::vector<TruthPoint>& into, const Sweeped& s, double runs) {
  for (std::size_t i = 0; i < s.N.size(); ++i) {
    auto it = std::find_if(into.begin(), into.end(), [&](const TruthPoint& p) { return p.N == s.N[i]; });
    if (it == into.end()) {
      into.push_back({s.N[i], s.loss[i], s.sem[i], runs});
      continue;
    }
    const double n = it->runs + runs;
    it->loss = (it->runs * it->loss + runs * s.loss[i]) / n;
    it->sem = std::sqrt(it->runs * it->runs * it->sem * it->sem + runs * runs * s.sem[i] * s.sem[i]) / n;
    it->runs = n;
  }
  std::sort(into.begin(), into.end(), [](const TruthPoint& a, const TruthPoint& b) { return a.N < b.N; });
}

Sweeped run_slice(const World& w, const std::vector<double>& Ns, double C, std::uint64_t seed, double runs,
                  const std::string& dir, const PartOptions& po) {
  std::vector<Planned> plan;
  for (double N : Ns) plan.push_back(plan_at(w, w.model->size_for_N(N), C));
  const Part part = plan_part(with_seed(w, seed, runs), w.spec, plan, "truth", po, *w.measure);
  return run_part(part, w.spec, *w.model, dir, po);
}

std::vector<double> log_spaced(double centre, double spread, int k) {
  std::vector<double> out;
  for (int i = 0; i < k; ++i) out.push_back(centre * std::pow(spread, k == 1 ? 0.0 : -1.0 + 2.0 * i / (k - 1)));
  return out;
}

}  // namespace

void fit_truth(Truth& t, std::uint64_t seed, double precision) {
  t.note.clear();  // a note of an earlier stage (an edge minimum an extension resolved) is stale
  t.N = t.L = t.D = t.N_lo = t.N_hi = t.L_lo = t.L_hi = Truth::kNaN;
  t.N_draws.clear();
  t.identified = false;
  std::vector<double> loss;
  for (const auto& p : t.points) loss.push_back(p.loss);
  t.max_runs = 0;
  for (const auto& p : t.points) t.max_runs = std::max(t.max_runs, p.runs);
  t.interior = window_minimum(t.points, loss, t.parabola, t.window_lo, t.window_hi);
  if (!t.interior) {
    t.note = "the truth slice has no interior minimum";
    return;
  }
  t.N = t.parabola.N_opt;
  t.L = t.parabola.L_opt;
  t.D = t.C / (6 * t.N);
  bool noisy = false;
  for (const auto& p : t.points) noisy = noisy || p.sem > 0;
  if (!noisy) {  // a deterministic world: the minimum is exact to the slice's resolution
    t.N_lo = t.N_hi = t.N;
    t.L_lo = t.L_hi = t.L;
    t.identified = true;
    return;
  }
  // The truth's own uncertainty: its points redrawn within their standard errors.
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::vector<double> ls;
  constexpr int kDraws = 400;
  for (int b = 0; b < kDraws; ++b) {
    std::vector<double> l2;
    for (const auto& p : t.points) l2.push_back(p.loss + p.sem * z(rng));
    IsoflopSlice s;
    double lo = 0, hi = 0;
    if (window_minimum(t.points, l2, s, lo, hi)) t.N_draws.push_back(s.N_opt), ls.push_back(s.L_opt);
  }
  // Redraws without an interior minimum count against precision: a slice that loses its minimum
  // under its own noise a quarter of the time does not identify N_opt.
  if (t.N_draws.size() >= kDraws * 3 / 4) {
    const Interval in = summarise_sample(t.N_draws, 0.95), il = summarise_sample(ls, 0.95);
    t.N_lo = in.lo, t.N_hi = in.hi, t.L_lo = il.lo, t.L_hi = il.hi;
    t.identified = t.N_spread() <= precision;
  }
}

Truth run_truth(const World& w, std::size_t h, double C, double centre, const std::string& out, const PartOptions& po,
                const Progress& progress) {
  const BenchSpec& b = w.bench;
  Truth t;
  t.horizon = b.horizons[h];
  t.C = C;
  const int k = static_cast<int>(b.truth_sizes);
  const std::string base = fmt::format("{}/{}/truth-{:g}x", out, w.name, t.horizon);
  auto seed_of = [&](int stage, int step) {
    return w.seed + 9000000 + 1000 * static_cast<std::uint64_t>(h) + 100 * static_cast<std::uint64_t>(stage) +
           static_cast<std::uint64_t>(step);
  };
  // 1. The slice, extended while its lowest mean is at an edge.
  for (int ext = 0; ext <= kMaxExtensions; ++ext) {
    progress(fmt::format("[{}] truth at {:g}x (C = {:.3g}){}: {} sizes x {} runs", w.name, t.horizon, C,
                         ext ? fmt::format(", extension {}", ext) : "", k, b.truth_runs));
    merge(t.points, run_slice(w, log_spaced(centre, b.truth_spread, k), C, seed_of(0, ext), b.truth_runs,
                              base + (ext ? fmt::format("-ext{}", ext) : ""), po),
          b.truth_runs);
    fit_truth(t, seed_of(0, ext), b.truth_precision);
    if (t.interior) break;
    const auto best = std::min_element(t.points.begin(), t.points.end(),
                                       [](const TruthPoint& a, const TruthPoint& c) { return a.loss < c.loss; });
    if (best == t.points.begin()) centre = t.points.front().N / b.truth_spread;
    else if (best + 1 == t.points.end()) centre = t.points.back().N * b.truth_spread;
    else {
      t.note = "the truth slice's points are too noisy for a minimum (raise truth_runs)";
      return t;
    }
  }
  if (!t.interior) return t;
  // 2. Finer slices around the minimum: each spans the square root of the last one's spread.
  double spread = b.truth_spread;
  for (int r = 1; r <= static_cast<int>(b.refine); ++r) {
    spread = std::sqrt(spread);
    progress(fmt::format("[{}] truth at {:g}x: finer slice {} (a factor {:.3g} either side)", w.name, t.horizon, r, spread));
    merge(t.points, run_slice(w, log_spaced(t.N, spread, k), C, seed_of(1, r), b.truth_runs,
                              fmt::format("{}-fine{}", base, r), po),
          b.truth_runs);
    fit_truth(t, seed_of(1, r), b.truth_precision);
    if (!t.interior) return t;
  }
  // 3. More runs near the minimum until the truth's interval is within its precision.
  for (int more = 1; !t.identified && t.max_runs + b.truth_runs <= b.truth_max_runs; ++more) {
    std::vector<double> near;
    for (const auto& p : t.points)
      if (std::log(p.N) >= t.window_lo - 1e-12 && std::log(p.N) <= t.window_hi + 1e-12) near.push_back(p.N);
    progress(fmt::format("[{}] truth at {:g}x: N_opt known to +-{:.0f}%, {} more runs at {} sizes", w.name, t.horizon,
                         100 * t.N_spread(), b.truth_runs, near.size()));
    merge(t.points, run_slice(w, near, C, seed_of(2, more), b.truth_runs, fmt::format("{}-more{}", base, more), po),
          b.truth_runs);
    fit_truth(t, seed_of(2, more), b.truth_precision);
    if (!t.interior) return t;
  }
  if (!t.identified)
    t.note = std::isfinite(t.N_spread())
                 ? fmt::format("unidentified: the truth's 95% interval on N_opt is +-{:.0f}% after {:g} runs per point "
                               "(the stated precision is +-{:.0f}%)",
                               100 * t.N_spread(), t.max_runs, 100 * b.truth_precision)
                 : fmt::format("unidentified: the slice loses its minimum under its own noise after {:g} runs per point",
                               t.max_runs);
  return t;
}

std::size_t reach_predictions(Truth& t, const World& w, std::size_t h, const std::vector<double>& predicted_N,
                              const std::string& out, const PartOptions& po, const Progress& progress) {
  if (t.points.size() < 2 || !t.interior) return 0;
  // The slice's own spacing in log N (its first points are evenly spaced).
  const double step = std::pow(w.bench.truth_spread, 2.0 / (w.bench.truth_sizes - 1));
  double below = t.points.front().N, above = t.points.back().N;
  for (double N : predicted_N)
    if (std::isfinite(N) && N > 0) below = std::min(below, N), above = std::max(above, N);
  std::vector<double> Ns;
  for (int i = 1; i <= kMaxReach && t.points.front().N / std::pow(step, i - 1) > below * (1 + 1e-9); ++i)
    Ns.push_back(t.points.front().N / std::pow(step, i));
  for (int i = 1; i <= kMaxReach && t.points.back().N * std::pow(step, i - 1) < above * (1 - 1e-9); ++i)
    Ns.push_back(t.points.back().N * std::pow(step, i));
  std::erase_if(Ns, [&](double N) { return N < 1 || N > t.C / 6; });
  if (Ns.empty()) return 0;
  progress(fmt::format("[{}] truth at {:g}x: {} sizes added to reach the predictions outside the slice", w.name,
                       t.horizon, Ns.size()));
  const std::size_t before = t.points.size();
  const std::uint64_t seed = w.seed + 9000000 + 1000 * static_cast<std::uint64_t>(h) + 900;
  // A size the machine cannot run (a run over the memory or work limit, refused before it starts)
  // is left out, the farthest from the slice first; its predictions stay unscored and counted.
  const double centre = std::log(t.N);
  std::sort(Ns.begin(), Ns.end(), [&](double a, double b) { return std::fabs(std::log(a) - centre) < std::fabs(std::log(b) - centre); });
  while (!Ns.empty()) {
    try {
      merge(t.points, run_slice(w, Ns, t.C, seed, w.bench.truth_runs, fmt::format("{}/{}/truth-{:g}x-reach", out, w.name, t.horizon), po),
            w.bench.truth_runs);
      break;
    } catch (const InputError& e) {
      progress(fmt::format("[{}] truth at {:g}x: N = {:.4g} left out of the reach ({})", w.name, t.horizon, Ns.back(), e.what()));
      Ns.pop_back();
    }
  }
  return t.points.size() - before;
}

}  // namespace scalinglab::extrapolate
