// gnuplot figures of the fits; data are written inline as datablocks so the script stands alone.
#include "scalinglab/fit/fit_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/fit_report.hpp"
#include "scalinglab/fit/frontier.hpp"
#include "scalinglab/plot/figure_style.hpp"
#include "scalinglab/plot/panels.hpp"

namespace scalinglab::fit {

namespace {

std::vector<double> log_space(double lo, double hi, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * i / (n - 1)));
  return v;
}

// Budgets to draw IsoFLOP curves at: the data's slices (as the IsoFLOP fit groups them) when there
// are few, else log-spaced over the data's range.
std::vector<double> curve_budgets(const std::vector<double>& C) {
  const auto groups = group_budgets(C, IsoflopOptions{}.group_tolerance);
  if (groups.size() > 12) {
    const auto [lo, hi] = std::minmax_element(C.begin(), C.end());
    return log_space(*lo, *hi, 7);
  }
  std::vector<double> out;
  for (const auto& g : groups) {
    double log_sum = 0;
    for (const std::size_t i : g) log_sum += std::log(C[i]);
    out.push_back(std::exp(log_sum / static_cast<double>(g.size())));
  }
  return out;
}

std::string block(const std::string& name, const std::string& rows) { return "$" + name + " << EOD\n" + rows + "EOD\n"; }

// Tick marks for a log axis spanning less than a decade, where gnuplot would label no tick at all:
// 4 to 10 values at a round linear step (1, 2 or 5 x 10^k) within [lo, hi]. Empty for wider ranges.
std::string narrow_log_tics(const char* axis, double lo, double hi) {
  if (!(lo > 0) || !(hi > lo) || hi / lo >= 10) return "";
  double step = std::pow(10.0, std::floor(std::log10(hi - lo)));
  for (const double f : {1.0, 0.5, 0.2, 0.1})
    if ((hi - lo) / (step * f) >= 4) {
      step *= f;
      break;
    }
  std::string list;
  for (double v = std::ceil(lo / step) * step; v <= hi * (1 + 1e-12); v += step)
    list += fmt::format("{}\"{:.3g}\" {:.10g}", list.empty() ? "" : ", ", v, v);
  return fmt::format("set {}tics ({})\n", axis, list);
}

}  // namespace

bool plot_law_fit(const std::string& dir, const std::string& name, const LawFit& fit, const FitColumns& data,
                  const Bootstrap* boot, double level) {
  std::filesystem::create_directories(dir);
  const ScalingLaw& law = *fit.law;
  std::string pre, mp;
  if (law.inputs.size() == 1) {
    std::string pts, curve, res;
    const auto [lo, hi] = std::minmax_element(data.x.begin(), data.x.end());
    for (double x : log_space(*lo, *hi, 200))
      curve += fmt::format("{:.10g} {:.10g}\n", x, std::exp(law_log_predict(law, fit.theta, std::log(x))));
    for (std::size_t i = 0; i < data.x.size(); ++i) {
      const double pred = law_log_predict(law, fit.theta, std::log(data.x[i]));
      pts += fmt::format("{:.10g} {:.10g}\n", data.x[i], data.loss[i]);
      res += fmt::format("{:.10g} {:.10g}\n", data.x[i], pred - std::log(data.loss[i]));
    }
    pre = block("pts", pts) + block("curve", curve) + block("res", res) + panel_style_lines() + "@panel_key\n";
    mp = "set multiplot layout 1,2\nunset logscale\nset autoscale y\nset logscale xy\n" + log_format('x', *lo, *hi) + "set xlabel " + gp_string(gp_literal_markup(data.x_name.empty() ? "x" : data.x_name)) +
         "\nset ylabel " + gp_string(gp_literal_markup(data.loss_name.empty() ? "loss" : data.loss_name)) + "\n"
         "set title " + gp_string(gp_literal_markup(law.name == law.formula ? law.formula : law.name + ": " + law.formula)) + "\n"
         "plot $pts with points pt 7 ps 0.6 lc rgb '#0072B2' title 'data', $curve with lines dt 2 lw 2 lc rgb '#0072B2' title 'fitted law'\n"
         "unset logscale y\nset ylabel 'log residual (fit - data)'\nset title 'residuals'\n"
         "plot $res with points pt 7 ps 0.6 lc rgb '#0072B2' notitle, 0 with lines lc rgb 'black' notitle\n"
         "unset multiplot\n";
    return write_and_run_multiplot(dir, name, 1200, 520, "fit of the " + law.name + " law", pre, mp);
  }
  // Two-input law.
  const auto [cmin, cmax] = std::minmax_element(data.C.begin(), data.C.end());
  const auto [nmin, nmax] = std::minmax_element(data.N.begin(), data.N.end());
  std::string pts, res, curves, opt, frontier;
  for (std::size_t i = 0; i < data.N.size(); ++i) {
    const double pred = law_log_predict(law, fit.theta, std::log(data.N[i]), std::log(data.D[i]));
    pts += fmt::format("{:.10g} {:.10g} {:.5f}\n", data.N[i], data.loss[i], std::log10(data.C[i]));
    res += fmt::format("{:.10g} {:.10g} {:.5f}\n", std::exp(pred), pred - std::log(data.loss[i]), std::log10(data.C[i]));
  }
  const std::vector<double> budgets = curve_budgets(data.C);
  const auto [lmin, lmax] = std::minmax_element(data.loss.begin(), data.loss.end());
  for (double C : budgets) {
    for (double N : log_space(*nmin / 2, *nmax * 2, 120))
      curves += fmt::format("{:.10g} {:.10g} {:.5f}\n", N,
                            std::exp(law_log_predict(law, fit.theta, std::log(N), std::log(C / (6 * N)))), std::log10(C));
    curves += "\n";
  }
  for (double C : log_space(*cmin, *cmax * 100, 60)) {
    Allocation a;
    try {
      a = optimal_allocation(fit, C);
    } catch (const InputError&) {
      continue;  // no interior optimum at this budget (a law without a frontier there)
    }
    opt += fmt::format("{:.10g} {:.10g}\n", a.N, a.L);
    double lo = NAN, hi = NAN;
    if (boot) {
      const Interval band = allocation_band(law, *boot, C, level);
      lo = band.lo;
      hi = band.hi;
    }
    frontier += fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {:.10g}\n", C, a.N, lo, hi, a.D);
  }
  pre = block("pts", pts) + block("res", res) + block("curves", curves) + block("opt", opt) + block("frontier", frontier) +
        panel_style_lines() + "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n"
        "set cblabel 'log_{10} C (FLOPs)'\n";
  mp = "set multiplot layout 1,3\nunset logscale\nset colorbox\nset rmargin 8\n"
       "set logscale xy\n" + log_format('x', *nmin / 2, *nmax * 2) + "set xlabel " + gp_string("N (parameters): " + gp_literal_markup(data.N_name.empty() ? std::string("N") : data.N_name)) +
       "\nset ylabel " + gp_string(gp_literal_markup(data.loss_name.empty() ? "loss" : data.loss_name)) + "\n@panel_key\n" +
       fmt::format("set yrange [{:.6g}:{:.6g}]\n", *lmin * 0.9, *lmax * 1.15) + narrow_log_tics("y", *lmin * 0.9, *lmax * 1.15) +
       "set title " + gp_string(gp_literal_markup("IsoFLOP curves of the fitted law " + law.name)) + "\n"
       "plot $curves with lines lw 1.5 lc palette notitle, $pts with points pt 7 ps 0.5 lc palette notitle, "
       "$opt with lines dt 2 lw 2 lc rgb 'black' title 'optimum'\n"
       // The loss panel's y range and tics must not carry over: N_opt and D_opt live far above them.
       "unset colorbox\nset rmargin 4\nset autoscale y\nset ytics autofreq\nset format x '10^{%L}'\nset format y '10^{%L}'\n"
       "set xlabel 'C (FLOPs)'\nset ylabel 'compute-optimal size'\n@panel_key\n"
       "set title " + gp_string(law.has_frontier ? fmt::format("frontier: N_{{opt}} ∝ C^{{{:.3f}}}, D_{{opt}} ∝ C^{{{:.3f}}}",
                                                               fit.value("a"), fit.value("b"))
                                                 : std::string("frontier (minimised numerically)")) + "\n"
       "plot " + std::string(boot ? fmt::format("$frontier using 1:3:4 with filledcurves lc rgb '#0072B2' fs transparent solid 0.18 "
                                                "title '{:.0f}% bootstrap band of N_{{opt}}', ", 100 * level)
                                  : "") +
       "$frontier using 1:2 with lines lw 2 lc rgb '#0072B2' title 'N_{opt}', "
       "$frontier using 1:5 with lines lw 2 lc rgb '#D55E00' title 'D_{opt}'\n"
       "set colorbox\nset rmargin 8\nunset logscale xy\nset autoscale xy\nset format x '%g'\nset format y '%g'\n"
       "set xlabel 'fitted loss'\nset ylabel 'log residual (fit - data)'\n"
       "set title 'residuals'\n"
       "plot $res using 1:2:3 with points pt 7 ps 0.5 lc palette notitle, 0 with lines lc rgb 'black' notitle\n"
       "unset multiplot\n";
  return write_and_run_multiplot(dir, name, 1650, 540, "fit of the " + law.name + " law", pre, mp);
}

bool plot_isoflop(const std::string& dir, const std::string& name, const IsoflopFit& fit, const FitColumns& data,
                  const IsoflopBootstrap* boot, double level) {
  (void)level;
  std::filesystem::create_directories(dir);
  // Trimmed runs (left out of their slice's parabola) are drawn hollow.
  std::vector<bool> trimmed(data.N.size(), false);
  for (const auto& s : fit.slices)
    for (const std::size_t i : s.trimmed_rows)
      if (i < trimmed.size()) trimmed[i] = true;
  std::string pts, cut, minima, line, losses;
  for (std::size_t i = 0; i < data.N.size(); ++i)
    (trimmed[i] ? cut : pts) += fmt::format("{:.10g} {:.10g} {:.5f}\n", data.N[i], data.loss[i], std::log10(data.C[i]));
  if (cut.empty()) cut = "NaN NaN NaN\n";
  std::string parabolas;
  for (const auto& s : fit.slices) {
    minima += fmt::format("{:.10g} {:.10g} {:.10g} {:.5f}\n", s.N_opt, s.L_opt, s.C, std::log10(s.C));
    for (int k = 0; k <= 60; ++k) {
      const double t = s.log_N_min - s.centre + (s.log_N_max - s.log_N_min) * k / 60.0;
      const double N = std::exp(s.centre + t);
      parabolas += fmt::format("{:.10g} {:.10g} {:.5f}\n", N, s.loss_at(N), std::log10(s.C));
    }
    parabolas += "\n";
  }
  const auto [lmin, lmax] = std::minmax_element(data.loss.begin(), data.loss.end());
  const double c_lo = fit.slices.front().C, c_hi = fit.slices.back().C * 100;
  for (double C : log_space(c_lo, c_hi, 40)) {
    line += fmt::format("{:.10g} {:.10g} {:.10g}\n", C, fit.N_at(C), fit.D_at(C));
    losses += fmt::format("{:.10g} {:.10g} {:.10g}\n", C, fit.L_at_power(C), fit.loss_law.fitted ? fit.L_at(C) : NAN);
  }
  std::string pre = block("pts", pts) + block("cut", cut) + block("minima", minima) + block("line", line) +
                    block("parabolas", parabolas) + block("losses", losses) +
                    panel_style_lines() + "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n"
                    "set cblabel 'log_{10} C (FLOPs)'\n";
  const SaturatingLoss& law = fit.loss_law;
  std::string mp =
      "set multiplot layout 1,3\nunset logscale\nset colorbox\nset rmargin 8\nset logscale x\n" +
      log_format('x', *std::min_element(data.N.begin(), data.N.end()), *std::max_element(data.N.begin(), data.N.end())) +
      "set xlabel 'N (parameters)'\nset ylabel 'loss'\n@panel_key\n" +
      fmt::format("set yrange [{:.6g}:{:.6g}]\n", *lmin - 0.05 * (*lmax - *lmin), *lmax + 0.05 * (*lmax - *lmin)) +
      "set title 'IsoFLOP slices, their parabolas and minima'\n"
      "plot $parabolas using 1:2:3 with lines lw 1.5 lc palette notitle, $pts using 1:2:3 with points pt 7 ps 0.6 lc palette notitle, "
      "$cut using 1:2:3 with points pt 6 ps 0.6 lc palette " +
      std::string(fit.options.trim > 0 ? "title 'trimmed'" : "notitle") + ", "
      "$minima using 1:2 with points pt 6 ps 1.6 lw 2 lc rgb 'black' title 'parabola minimum'\n"
      "unset colorbox\nset rmargin 4\nset logscale xy\nset autoscale y\nset format x '10^{%L}'\nset format y '10^{%L}'\n"
      "set xlabel 'C (FLOPs)'\nset ylabel 'compute-optimal size'\n@panel_key\n"
      "set title " + gp_string(fmt::format("N_{{opt}} ∝ C^{{{:.3f}}}, D_{{opt}} ∝ C^{{{:.3f}}}{}", fit.a(), fit.b(),
                                           boot ? fmt::format(" (a in [{:.3f}, {:.3f}])", boot->a.lo, boot->a.hi) : "")) + "\n"
      "plot $minima using 3:1 with points pt 7 ps 1 lc rgb '#0072B2' title 'N_{opt} of slices', "
      "$line using 1:2 with lines dt 2 lw 2 lc rgb '#0072B2' title 'fit', "
      "$minima using 3:($3/(6*$1)) with points pt 5 ps 1 lc rgb '#D55E00' title 'D_{opt} of slices', "
      "$line using 1:3 with lines dt 2 lw 2 lc rgb '#D55E00' title 'fit'\n"
      // The loss at the minima: the power law and, when fitted, E + A C^-gamma (which levels off at E).
      "set logscale x\nunset logscale y\nset autoscale y\nset format y '%g'\n@panel_key\nset ylabel 'loss at the minimum'\n"
      "set title " + gp_string(law.fitted ? fmt::format("L_{{opt}} = {:.3g} + {:.3g} C^{{-{:.3f}}}", law.E, law.A, law.gamma)
                                          : std::string("L_{opt}: power law (too few slices for E + A C^{-gamma})")) + "\n"
      "plot $minima using 3:2 with points pt 7 ps 1 lc rgb 'black' title 'L_{opt} of slices', "
      "$losses using 1:2 with lines dt 3 lw 2 lc rgb '#7f7f7f' title 'power law'" +
      std::string(law.fitted ? ", $losses using 1:3 with lines dt 2 lw 2 lc rgb '#000000' title 'E + A C^{-gamma}'" : "") + "\n"
      "unset multiplot\n";
  return write_and_run_multiplot(dir, name, 1650, 520, "IsoFLOP analysis", pre, mp);
}

}  // namespace scalinglab::fit
