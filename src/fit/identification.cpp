// Which fitted parameters the data pin down (identification.hpp).
#include "scalinglab/fit/identification.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace scalinglab::fit {

namespace {

std::string short_number(double v) { return fmt::format("{:.3g}", v); }

// moves[k][p]: whether reported parameter p changes with coordinate k (a computed one, such as
// chinchilla's G, changes with several).
std::vector<std::vector<bool>> dependence(const ScalingLaw& law, const std::vector<double>& theta) {
  const std::size_t P = law.parameters.size(), K = law.dims();
  std::vector<double> base(P), moved(P);
  law.report(theta.data(), base.data());
  std::vector<std::vector<bool>> out(K, std::vector<bool>(P, false));
  for (std::size_t k = 0; k < K; ++k) {
    std::vector<double> t = theta;
    t[k] += 1e-3 * std::max(1.0, std::fabs(t[k]));
    law.report(t.data(), moved.data());
    for (std::size_t p = 0; p < P; ++p) out[k][p] = !(moved[p] == base[p]);  // NaN counts as moving
  }
  return out;
}

}  // namespace

std::vector<Identification> identify_parameters(const LawFit& fit, const Bootstrap& boot, const FitOptions& options) {
  const ScalingLaw& law = *fit.law;
  const std::size_t P = law.parameters.size(), K = law.dims();
  std::vector<Identification> out(P);

  // Coordinates the data do not determine: a flat direction, or refits piling on a bound.
  std::vector<Identification> coordinate(K);
  for (std::size_t k : fit.flat)
    if (k < K)
      coordinate[k] = {false, "in a flat direction of the fit: the data determine only combinations with other "
                              "parameters, and where a refit ends along it depends on its start, not on the data",
                       "flat direction of the fit"};
  Eigen::VectorXd lower, upper;
  coordinate_bounds(law, options, lower, upper);
  const std::size_t refits = boot.thetas.size();
  for (std::size_t k = 0; k < K; ++k) {
    if (!coordinate[k].identified) continue;
    for (const double bound : {lower[static_cast<Eigen::Index>(k)], upper[static_cast<Eigen::Index>(k)]}) {
      if (!std::isfinite(bound)) continue;
      std::size_t on = 0;
      for (const auto& theta : boot.thetas)  // the fit's own test of a bound (parametric_fit.cpp)
        if (k < theta.size() && std::fabs(theta[k] - bound) <= 1e-7 * std::max(1.0, std::fabs(theta[k]))) ++on;
      if (on == 0 || static_cast<double>(on) < kBoundShare * static_cast<double>(refits)) continue;
      const double value = law.coordinate_log[k] ? std::exp(bound) : bound;
      coordinate[k] = {false,
                       fmt::format("{} of the {} bootstrap refits end on its bound {}: the bound, not the data, "
                                   "limits it", on, refits, short_number(value)),
                       fmt::format("{:.0f}% of refits on its bound {}", 100.0 * static_cast<double>(on) /
                                   static_cast<double>(refits), short_number(value))};
      break;
    }
  }
  // Each such coordinate's parameter, and the parameters computed from it.
  const auto moves = dependence(law, fit.theta);
  for (std::size_t k = 0; k < K; ++k) {
    if (coordinate[k].identified) continue;
    const std::string& name = k < law.coordinate_parameter.size() ? law.coordinate_parameter[k] : law.coordinates[k];
    for (std::size_t p = 0; p < P; ++p) {
      if (!moves[k][p] || !out[p].identified) continue;
      if (law.parameters[p] == name) out[p] = coordinate[k];
      else out[p] = {false, "computed from " + name + ", which is unidentified (" + coordinate[k].brief + ")",
                     "computed from " + name};
    }
  }

  // A positive parameter whose refits span orders of magnitude.
  for (std::size_t p = 0; p < P; ++p) {
    if (!out[p].identified || !(fit.values[p] > 0)) continue;
    std::vector<double> sample;
    for (const auto& rep : boot.replicates)
      if (p < rep.size() && std::isfinite(rep[p])) sample.push_back(rep[p]);
    if (sample.size() < 2) continue;
    const Interval iv = summarise_sample(sample, 0.95);
    if (!(iv.lo >= 0)) continue;  // a sign the refits do not agree on: no order of magnitude to judge
    const double span = iv.hi / iv.lo;  // infinite when the lower end is 0
    if (!(span > kSpanLimit)) continue;
    const std::string factor = std::isfinite(span) ? short_number(span) : std::string("without bound");
    out[p] = {false,
              fmt::format("the central 95% of its bootstrap refits, [{}, {}], spans a factor {} (more than {:g}): not "
                          "even its order of magnitude is known", short_number(iv.lo), short_number(iv.hi), factor,
                          kSpanLimit),
              "refits span a factor " + factor};
  }
  return out;
}

}  // namespace scalinglab::fit
