// Approach 2 against Approach 3 at the same budgets (see the header).
#include "scalinglab/fit/approach_agreement.hpp"

#include <fmt/format.h>

#include <cmath>

#include "scalinglab/fit/fit_report.hpp"
#include "scalinglab/fit/frontier.hpp"

namespace scalinglab::fit {

namespace {

Estimate estimate(double value, const Interval* iv) {
  Estimate e;
  e.value = value;
  if (iv && std::isfinite(iv->lo) && std::isfinite(iv->hi)) e.lo = iv->lo, e.hi = iv->hi;
  return e;
}

nlohmann::json estimate_json(const Estimate& e) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"value", num(e.value)}, {"lo", num(e.lo)}, {"hi", num(e.hi)}};
}

std::string estimate_text(const Estimate& e, const char* f) {
  std::string s = fmt::format(fmt::runtime(f), e.value);
  if (e.has_interval()) s += " [" + fmt::format(fmt::runtime(f), e.lo) + ", " + fmt::format(fmt::runtime(f), e.hi) + "]";
  return s;
}

void check(std::vector<std::string>& warnings, const std::string& what, const Estimate& x, const Estimate& y,
           const char* f, double level) {
  if (!disjoint(x, y)) return;
  warnings.push_back(fmt::format("{}: Approach 2 gives {} and Approach 3 {}: their {:.0f}% intervals are disjoint, so the "
                                 "approaches disagree beyond their own uncertainty; at least one misdescribes these data "
                                 "(the slices' parabolas, the law's form or the noise), and neither interval can be "
                                 "taken at face value",
                                 what, estimate_text(x, f), estimate_text(y, f), 100 * level));
}

}  // namespace

bool disjoint(const Estimate& x, const Estimate& y) {
  return x.has_interval() && y.has_interval() && (x.hi < y.lo || y.hi < x.lo);
}

ApproachComparison compare_approaches(const IsoflopFit& iso, const IsoflopBootstrap* boot2, const LawFit& law,
                                      const Bootstrap* boot3, const std::vector<double>& budgets, double level) {
  ApproachComparison c;
  c.level = level;
  c.a2 = estimate(iso.a(), boot2 ? &boot2->a : nullptr);
  std::size_t a_index = 0;
  while (a_index < law.law->parameters.size() && law.law->parameters[a_index] != "a") ++a_index;
  c.a3 = estimate(law.value("a"), boot3 && a_index < boot3->intervals.size() ? &boot3->intervals[a_index] : nullptr);
  check(c.warnings, "the exponent a of N_opt ~ C^a", c.a2, c.a3, "{:.4f}", level);
  for (std::size_t k = 0; k < budgets.size(); ++k) {
    const double C = budgets[k];
    FrontierPrediction p2, p3;
    p2.C = p3.C = C;
    p2.N = estimate(iso.N_at(C), boot2 ? &boot2->n_at[k] : nullptr);
    p2.D = estimate(iso.D_at(C), boot2 ? &boot2->d_at[k] : nullptr);
    p2.L = estimate(iso.L_at(C), boot2 ? &boot2->l_at[k] : nullptr);
    const Allocation a = optimal_allocation(law, C);
    AllocationBands bands;
    if (boot3) bands = allocation_bands(*law.law, *boot3, C, level);
    p3.N = estimate(a.N, boot3 ? &bands.N : nullptr);
    p3.D = estimate(a.D, boot3 ? &bands.D : nullptr);
    p3.L = estimate(a.L, boot3 ? &bands.L : nullptr);
    const std::string at = fmt::format("at C = {:.3g}, ", C);
    check(c.warnings, at + "N_opt", p2.N, p3.N, "{:.4g}", level);
    check(c.warnings, at + "D_opt", p2.D, p3.D, "{:.4g}", level);
    check(c.warnings, at + "the loss at the optimum", p2.L, p3.L, "{:.4f}", level);
    c.at2.push_back(p2);
    c.at3.push_back(p3);
  }
  return c;
}

nlohmann::json comparison_json(const ApproachComparison& c) {
  nlohmann::json j;
  j["level"] = c.level;
  j["a"] = {{"approach2", estimate_json(c.a2)}, {"approach3", estimate_json(c.a3)}, {"disjoint", disjoint(c.a2, c.a3)}};
  j["at"] = nlohmann::json::array();
  for (std::size_t k = 0; k < c.at2.size(); ++k) {
    nlohmann::json row = {{"C", c.at2[k].C}};
    for (auto [name, x, y] : {std::tuple{"N_opt", &c.at2[k].N, &c.at3[k].N}, std::tuple{"D_opt", &c.at2[k].D, &c.at3[k].D},
                              std::tuple{"loss", &c.at2[k].L, &c.at3[k].L}})
      row[name] = {{"approach2", estimate_json(*x)}, {"approach3", estimate_json(*y)}, {"disjoint", disjoint(*x, *y)}};
    j["at"].push_back(row);
  }
  j["warnings"] = c.warnings;
  return j;
}

std::string comparison_table(const ApproachComparison& c) {
  std::string out = fmt::format("\nApproach 2 against Approach 3 ({:.0f}% bootstrap intervals; * disjoint)\n", 100 * c.level);
  auto cell = [](const Estimate& e, const char* f) { return estimate_text(e, f); };
  out += fmt::format("  {:<22} {:<36} {:<36}\n", "", "Approach 2 (IsoFLOP)", "Approach 3 (Chinchilla law)");
  out += fmt::format("  {:<22} {:<36} {:<36}{}\n", "a (N_opt ~ C^a)", cell(c.a2, "{:.4f}"), cell(c.a3, "{:.4f}"),
                     disjoint(c.a2, c.a3) ? " *" : "");
  for (std::size_t k = 0; k < c.at2.size(); ++k) {
    const auto& p2 = c.at2[k];
    const auto& p3 = c.at3[k];
    out += fmt::format("  {:<22} {:<36} {:<36}{}\n", fmt::format("N_opt at {:.3g}", p2.C), cell(p2.N, "{:.4g}"),
                       cell(p3.N, "{:.4g}"), disjoint(p2.N, p3.N) ? " *" : "");
    out += fmt::format("  {:<22} {:<36} {:<36}{}\n", fmt::format("D_opt at {:.3g}", p2.C), cell(p2.D, "{:.4g}"),
                       cell(p3.D, "{:.4g}"), disjoint(p2.D, p3.D) ? " *" : "");
    out += fmt::format("  {:<22} {:<36} {:<36}{}\n", fmt::format("loss at {:.3g}", p2.C), cell(p2.L, "{:.4f}"),
                       cell(p3.L, "{:.4f}"), disjoint(p2.L, p3.L) ? " *" : "");
  }
  for (const auto& w : c.warnings) out += "WARNING: " + w + "\n";
  return out;
}

}  // namespace scalinglab::fit
