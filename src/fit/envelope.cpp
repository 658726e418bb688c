// Approach 1: the envelope of training curves.
#include "scalinglab/fit/envelope.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "scalinglab/core/error.hpp"

namespace scalinglab::fit {

double Envelope::L_at(double C) const {
  return loss_law.fitted ? loss_law.E + loss_law.A * std::pow(C, -loss_law.gamma)
                         : std::exp(l_opt.intercept + l_opt.slope * std::log(C));
}

namespace {

struct Curve {
  double N;
  std::vector<double> logC, logL;  // by increasing compute
  // log loss at log compute x, linear between checkpoints; NaN outside the curve.
  double at(double x) const {
    if (logC.empty() || x < logC.front() - 1e-12 || x > logC.back() + 1e-12) return std::nan("");
    const auto it = std::lower_bound(logC.begin(), logC.end(), x);
    if (it == logC.begin()) return logL.front();
    if (it == logC.end()) return logL.back();
    const std::size_t i = static_cast<std::size_t>(it - logC.begin());
    const double f = logC[i] > logC[i - 1] ? (x - logC[i - 1]) / (logC[i] - logC[i - 1]) : 1.0;
    return logL[i - 1] + f * (logL[i] - logL[i - 1]);
  }
};

}  // namespace

Envelope fit_envelope(const Curves& c, const std::vector<double>& run_weight, int points, bool loss_law) {
  std::map<int, Curve> curves;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!(c.C[i] > 0) || !(c.loss[i] > 0) || !std::isfinite(c.C[i]) || !std::isfinite(c.loss[i])) continue;
    if (!run_weight.empty() && !(run_weight[static_cast<std::size_t>(c.run[i])] > 0)) continue;
    Curve& k = curves[c.run[i]];
    k.N = c.N[i];
    k.logC.push_back(std::log(c.C[i]));
    k.logL.push_back(std::log(c.loss[i]));
  }
  std::vector<Curve> runs;
  for (auto& [id, k] : curves) {
    std::vector<std::size_t> order(k.logC.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return k.logC[a] < k.logC[b]; });
    Curve s{k.N, {}, {}};
    for (std::size_t i : order) s.logC.push_back(k.logC[i]), s.logL.push_back(k.logL[i]);
    if (s.logC.size() >= 2) runs.push_back(std::move(s));
  }
  std::vector<double> sizes;
  for (const auto& r : runs) sizes.push_back(r.N);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.size() < 2) throw InputError("Approach 1 needs the learning curves of at least two model sizes");
  // The compute range where at least two sizes' curves overlap.
  double lo = 1e300, hi = -1e300;
  for (const auto& a : runs) lo = std::min(lo, a.logC.front()), hi = std::max(hi, a.logC.back());
  auto covering = [&](double x) {
    std::vector<double> n;
    for (const auto& r : runs)
      if (std::isfinite(r.at(x)) && std::find(n.begin(), n.end(), r.N) == n.end()) n.push_back(r.N);
    return n.size();
  };
  const int scan = 4 * points;
  double a = hi, b = lo;
  for (int i = 0; i <= scan; ++i) {
    const double x = lo + (hi - lo) * i / scan;
    if (covering(x) >= 2) a = std::min(a, x), b = std::max(b, x);
  }
  if (!(b > a)) throw InputError("Approach 1: no compute is reached by the curves of two model sizes");
  Envelope e;
  std::vector<double> lx, ln, ll;
  for (int i = 0; i < points; ++i) {
    const double x = a + (b - a) * i / (points - 1);
    double best = std::numeric_limits<double>::infinity(), n = 0;
    for (const auto& r : runs) {
      const double v = r.at(x);
      if (std::isfinite(v) && v < best) best = v, n = r.N;
    }
    if (!std::isfinite(best)) continue;
    e.C.push_back(std::exp(x)), e.N_opt.push_back(n), e.L_opt.push_back(std::exp(best));
    lx.push_back(x), ln.push_back(std::log(n)), ll.push_back(best);
  }
  e.n_opt = regress(lx, ln);
  e.l_opt = regress(lx, ll);
  if (!std::isfinite(e.n_opt.slope)) throw InputError("Approach 1: the envelope's N_opt gives no regression on C");
  if (loss_law) {
    // The saturating law through 6 points of the envelope (its 60 points are not independent).
    std::vector<IsoflopSlice> pts;
    for (int k = 0; k < 6; ++k) {
      const std::size_t i = static_cast<std::size_t>(std::lround(k * (e.C.size() - 1) / 5.0));
      IsoflopSlice s;
      s.C = e.C[i], s.L_opt = e.L_opt[i];
      pts.push_back(s);
    }
    e.loss_law = fit_saturating_loss(pts);
  }
  return e;
}

}  // namespace scalinglab::fit
