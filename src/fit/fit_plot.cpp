// gnuplot figures of the fits, drawn from the numbers of fit_figure.hpp (which Python's plot_fit
// draws too); data are written inline as datablocks so the script stands alone.
//
// Conventions: a series of runs and the fitted curve that describes it share a colour, the curve
// dashed; every line drawn has a legend entry (runs coloured by a palette are keyed by a grey
// sample, "same colour" said in words); log axes read 10^k from two decades on, plain numbers
// below, in every panel.
#include "scalinglab/fit/fit_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/fit_figure.hpp"
#include "scalinglab/plot/figure_style.hpp"
#include "scalinglab/plot/panels.hpp"

namespace scalinglab::fit {

namespace {

using nlohmann::json;

double value(const json& v) { return v.is_number() ? v.get<double>() : NAN; }

// A datablock of parallel columns of `obj` (null: NaN), `extra` columns computed per row.
std::string block(const std::string& name, const json& obj, const std::vector<std::string>& keys) {
  std::string rows;
  const std::size_t n = obj.at(keys.front()).size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const json& col = obj.at(keys[k]);
      const double v = col[i].is_boolean() ? (col[i].get<bool>() ? 1.0 : 0.0) : value(col[i]);
      rows += fmt::format("{}{:.10g}", k ? " " : "", v);
    }
    rows += "\n";
  }
  if (rows.empty()) rows = "NaN NaN NaN\n";
  return "$" + name + " << EOD\n" + rows + "EOD\n";
}

// The colour of the figures' palette (viridis' five stops, as `set palette defined` below) at
// fraction t of the colour bar.
std::string palette_at(double t) {
  static const double stops[5][3] = {{0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62}, {0xfd, 0xe7, 0x25}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4;
  const int k = std::min(3, static_cast<int>(t));
  const double u = t - k;
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(stops[k][c] + u * (stops[k + 1][c] - stops[k][c])));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

// Curves (a list of {key: value, xs: [...], ys: [...]}) as one datablock of indexed sets, and the
// plot clauses drawing each dashed in the palette's colour of log10(key) on [cb_lo, cb_hi] (one
// colour per curve: a line coloured by `lc palette` is drawn segment by segment, and its dashes
// restart at every segment, so it would look solid).
std::pair<std::string, std::string> dashed_curves(const std::string& name, const json& curves, const char* key,
                                                  const char* xs, const char* ys, double cb_lo, double cb_hi) {
  std::string rows, clauses;
  int index = 0;
  for (const auto& c : curves) {
    for (std::size_t i = 0; i < c.at(xs).size(); ++i) rows += fmt::format("{:.10g} {:.10g}\n", value(c.at(xs)[i]), value(c.at(ys)[i]));
    rows += "\n\n";
    const double t = cb_hi > cb_lo ? (std::log10(c.at(key).get<double>()) - cb_lo) / (cb_hi - cb_lo) : 0.5;
    clauses += fmt::format("${} index {} using 1:2 with lines dt 2 lw 1.5 lc rgb '{}' notitle, ", name, index++, palette_at(t));
  }
  if (rows.empty()) rows = "NaN NaN\n";
  return {"$" + name + " << EOD\n" + rows + "EOD\n", clauses};
}

std::pair<double, double> range_of(const json& v) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& x : v)
    if (x.is_number()) lo = std::min(lo, x.get<double>()), hi = std::max(hi, x.get<double>());
  return {lo, hi};
}

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

// A log axis's range and tick format (and, under a decade, explicit ticks).
std::string log_axis(const char* axis, double lo, double hi) {
  return fmt::format("set {}range [{:.6g}:{:.6g}]\n", axis, lo, hi) + log_format(axis[0], lo, hi) +
         narrow_log_tics(axis, lo, hi);
}

// Panels with their legends below, rows of them: room under each panel for its key (up to 3
// rows of entries), no more, so that the canvas has no empty band.
const std::string kPanelLayout =
    "set bmargin 9\nset rmargin 4\nset tmargin 2.5\n"
    "panel_key = 'set key at graph 0, graph -0.2 left top Left reverse vertical maxrows 4 samplen 2.5'\n"
    "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n";

// Resets what one panel may have set and the next must not inherit.
const std::string kPanelReset =
    "unset logscale\nunset object\nset autoscale xy\nset xtics autofreq\nset ytics autofreq\nset format x '%g'\n"
    "set format y '%g'\nunset colorbox\nset rmargin 4\n";

// The data's range of budgets [clo, chi] shaded over the panel's y range [ylo, yhi]: a datablock
// `name` for the preamble, and the plot clause (first in its panel, so drawn behind the rest, and
// keyed like any other series).
std::pair<std::string, std::string> range_shade(const std::string& name, double clo, double chi, double ylo, double yhi) {
  return {fmt::format("${0} << EOD\n{1:.10g} {3:.10g} {4:.10g}\n{2:.10g} {3:.10g} {4:.10g}\nEOD\n", name, clo, chi, ylo, yhi),
          "$" + name + " using 1:2:3 with filledcurves fc rgb '#eeeeee' fs solid 1.0 title 'budgets of the data', "};
}

std::string grey_key(const char* style, const std::string& title) {
  return fmt::format("NaN with {} lc rgb '#707070' title {}", style, gp_string(title));
}

bool plot_law1(const std::string& dir, const std::string& name, const json& f) {
  const json& p = f["points"];
  const auto [xlo, xhi] = range_of(p["x"]);
  const auto [llo, lhi] = range_of(p["loss"]);
  const std::string pre = block("pts", p, {"x", "loss", "fitted", "residual"}) + block("curve", f["curve"], {"x", "loss"}) +
                          kPanelLayout;
  const std::string title = f["law"] == f["formula"] ? f["formula"].get<std::string>()
                                                     : f["law"].get<std::string>() + ": " + f["formula"].get<std::string>();
  std::string mp = "set multiplot layout 1,3\n";
  mp += kPanelReset + std::string("set logscale xy\n") + log_axis("x", xlo, xhi) + log_axis("y", llo * 0.95, lhi * 1.05) +
        "set xlabel " + gp_string(gp_literal_markup(f["x_name"].get<std::string>())) + "\nset ylabel " +
        gp_string(gp_literal_markup(f["loss_name"].get<std::string>())) + "\n@panel_key\nset title " +
        gp_string(gp_literal_markup(title)) + "\n"
        "plot $pts using 1:2 with points pt 7 ps 0.6 lc rgb '#0072B2' title 'data', "
        "$curve using 1:2 with lines dt 2 lw 2 lc rgb '#0072B2' title 'fitted law'\n";
  mp += kPanelReset + std::string("set logscale x\n") + log_axis("x", llo * 0.98, lhi * 1.02) +
        "set xlabel 'fitted loss'\nset ylabel 'log residual (fit - data)'\n@panel_key\nset title 'residuals against the fit'\n"
        "plot $pts using 3:4 with points pt 7 ps 0.6 lc rgb '#0072B2' title 'data', 0 with lines lc rgb 'black' title 'zero'\n";
  mp += kPanelReset + std::string("set logscale x\n") + log_axis("x", xlo, xhi) + "set xlabel " +
        gp_string(gp_literal_markup(f["x_name"].get<std::string>())) +
        "\nset ylabel 'log residual (fit - data)'\n@panel_key\nset title 'residuals against the input'\n"
        "plot $pts using 1:4 with points pt 7 ps 0.6 lc rgb '#0072B2' title 'data', 0 with lines lc rgb 'black' title 'zero'\n"
        "unset multiplot\n";
  return write_and_run_multiplot(dir, name, 1650, 520, "fit of the " + f["law"].get<std::string>() + " law", pre, mp);
}

}  // namespace

bool plot_law_fit(const std::string& dir, const std::string& name, const LawFit& fit, const FitColumns& data,
                  const Bootstrap* boot, double level) {
  std::filesystem::create_directories(dir);
  const json f = law_fit_figure(fit, data, boot, level);
  if (f["kind"] == "law1") return plot_law1(dir, name, f);
  const json& p = f["points"];
  json pts = p;
  pts["logC"] = json::array();
  pts["logN"] = json::array();
  for (std::size_t i = 0; i < p["C"].size(); ++i) {
    pts["logC"].push_back(std::log10(p["C"][i].get<double>()));
    pts["logN"].push_back(std::log10(p["N"][i].get<double>()));
    pts["ratio"].push_back(p["D"][i].get<double>() / p["N"][i].get<double>());
  }
  const auto [nlo, nhi] = range_of(p["N"]);
  const auto [dlo, dhi] = range_of(p["D"]);
  const auto [llo, lhi] = range_of(p["loss"]);
  const auto [clo, chi] = range_of(p["C"]);
  const auto [rlo, rhi] = range_of(pts["ratio"]);
  const bool has_frontier = f.contains("frontier") && !f["frontier"]["C"].empty();
  const bool bands = f["bootstrap"].get<bool>();
  const std::string level_text = fmt::format("{:.0f}%", 100 * level);
  const double lc_lo = std::log10(clo), lc_hi = std::log10(chi) + (chi > clo ? 0 : 1);
  const double ln_lo = std::log10(nlo), ln_hi = std::log10(nhi) + (nhi > nlo ? 0 : 1);
  const auto iso_curves = dashed_curves("isocurves", f["isoflop_curves"], "C", "N", "loss", lc_lo, lc_hi);
  const auto ratio_curves = dashed_curves("ratiocurves", f["ratio_curves"], "N", "ratio", "loss", ln_lo, ln_hi);
  std::string pre = block("pts", pts, {"N", "D", "C", "loss", "fitted", "residual", "logC", "logN", "ratio"}) +
                    iso_curves.first + ratio_curves.first +
                    block("sliceminima", f["slice_minima"], {"C", "N", "D", "loss"}) + kPanelLayout;
  if (has_frontier)
    pre += block("frontier", f["frontier"], {"C", "N", "N_lo", "N_hi", "D", "D_lo", "D_hi", "loss", "loss_lo", "loss_hi"});
  const std::string cb_C = fmt::format("set cbrange [{:.5f}:{:.5f}]\nset cblabel 'log_{{10}} C (FLOPs)'\n", lc_lo, lc_hi);
  const std::string cb_N = fmt::format("set cbrange [{:.5f}:{:.5f}]\nset cblabel 'log_{{10}} N (parameters)'\n", ln_lo, ln_hi);
  const std::string loss_label = gp_string(gp_literal_markup(f["loss_name"].get<std::string>()));
  const std::string N_label = gp_string("N (parameters): " + gp_literal_markup(f["N_name"].get<std::string>()));
  const double ylo = llo * 0.97, yhi = lhi * 1.08;
  std::string mp = "set multiplot layout 2,3\n";
  // 1. IsoFLOP curves of the fitted law over the runs.
  mp += kPanelReset + cb_C + "set colorbox\nset rmargin 9\nset logscale xy\n" + log_axis("x", nlo / 2, nhi * 2) +
        log_axis("y", ylo, yhi) + "set xlabel " + N_label + "\nset ylabel " + loss_label + "\n@panel_key\n"
        "set title " + gp_string(gp_literal_markup("IsoFLOP curves of the fitted law " + f["law"].get<std::string>())) + "\n"
        "plot $pts using 1:4:7 with points pt 7 ps 0.5 lc palette notitle, " + iso_curves.second +
        grey_key("points pt 7 ps 0.5", "runs (colour: their budget C)") + ", " +
        grey_key("lines dt 2 lw 1.5", "fitted law at each budget (same colour)") +
        (has_frontier ? ", $frontier using 2:8 with lines dt 2 lw 2 lc rgb 'black' title 'the law''s optimum'" : "") + "\n";
  // 2. Loss against tokens per parameter at fixed model sizes.
  mp += kPanelReset + cb_N + "set colorbox\nset rmargin 9\nset logscale xy\n" + log_axis("x", rlo / 1.5, rhi * 1.5) +
        log_axis("y", ylo, yhi) + "set xlabel 'D / N (tokens per parameter)'\nset ylabel " + loss_label + "\n@panel_key\n"
        "set title 'loss against tokens per parameter'\n"
        "plot $pts using 9:4:8 with points pt 7 ps 0.5 lc palette notitle, " + ratio_curves.second +
        grey_key("points pt 7 ps 0.5", "runs (colour: their N)") + ", " +
        grey_key("lines dt 2 lw 1.5", "fitted law at that N (same colour)") + "\n";
  // 3. The frontier with its bands, the data's budgets and the slices' best runs.
  mp += kPanelReset;
  if (has_frontier) {
    const auto [fclo, fchi] = range_of(f["frontier"]["C"]);
    auto [ylo3, yhi3] = range_of(f["frontier"]["N"]);
    const auto [dlo3, dhi3] = range_of(f["frontier"]["D"]);
    ylo3 = std::min({ylo3, nlo}) / 2, yhi3 = std::max({yhi3, dhi3, dhi}) * 2;
    const auto shade = range_shade("range3", clo, chi, ylo3, yhi3);
    pre += shade.first;
    mp += "set logscale xy\n" + log_axis("x", fclo, fchi) + log_axis("y", ylo3, yhi3) +
          "set xlabel 'C (FLOPs)'\nset ylabel 'compute-optimal size'\n@panel_key\nset title " +
          gp_string(f["frontier"].contains("a")
                        ? fmt::format("frontier: N_{{opt}} ∝ C^{{{:.3f}}}, D_{{opt}} ∝ C^{{{:.3f}}}",
                                      f["frontier"]["a"].get<double>(), f["frontier"]["b"].get<double>())
                        : std::string("frontier (minimised numerically)")) + "\nplot " + shade.second +
          (bands ? fmt::format("$frontier using 1:3:4 with filledcurves lc rgb '#0072B2' fs transparent solid 0.18 title "
                               "'{0} band N_{{opt}}', $frontier using 1:6:7 with filledcurves lc rgb '#D55E00' fs "
                               "transparent solid 0.18 title '{0} band D_{{opt}}', ", level_text)
                 : std::string()) +
          "$frontier using 1:2 with lines dt 2 lw 2 lc rgb '#0072B2' title 'N_{opt} (law)', "
          "$frontier using 1:5 with lines dt 2 lw 2 lc rgb '#D55E00' title 'D_{opt} (law)'" +
          // Each IsoFLOP budget's lowest-loss run (none for grids of N and D).
          (f["slice_minima"]["C"].empty()
               ? std::string()
               : ", $sliceminima using 1:2 with points pt 7 ps 0.9 lc rgb '#0072B2' title 'N of best runs', "
                 "$sliceminima using 1:3 with points pt 5 ps 0.9 lc rgb '#D55E00' title 'D of best runs'") + "\n";
  } else {
    mp += "set title 'no compute-optimal frontier (the law does not read N and D)'\nunset key\nplot NaN notitle\n";
  }
  // 4-6. Residuals against the fitted loss, N and D (colour: the budget).
  const std::string zero = ", 0 with lines lc rgb 'black' title 'zero'";
  const std::string runs = ", " + grey_key("points pt 7 ps 0.5", "runs (colour: their budget C)");
  mp += kPanelReset + cb_C + "set logscale x\n" + log_axis("x", llo * 0.98, lhi * 1.02) +
        "set xlabel 'fitted loss'\nset ylabel 'log residual (fit - data)'\n@panel_key\nset title 'residuals against the fit'\n"
        "plot $pts using 5:6:7 with points pt 7 ps 0.5 lc palette notitle" + runs + zero + "\n";
  mp += kPanelReset + cb_C + "set logscale x\n" + log_axis("x", nlo / 1.2, nhi * 1.2) + "set xlabel " + N_label +
        "\nset ylabel 'log residual (fit - data)'\n@panel_key\nset title 'residuals against N'\n"
        "plot $pts using 1:6:7 with points pt 7 ps 0.5 lc palette notitle" + runs + zero + "\n";
  mp += kPanelReset + cb_C + "set colorbox\nset rmargin 9\nset logscale x\n" + log_axis("x", dlo / 1.2, dhi * 1.2) +
        "set xlabel 'D (tokens)'\nset ylabel 'log residual (fit - data)'\n@panel_key\nset title 'residuals against D'\n"
        "plot $pts using 2:6:7 with points pt 7 ps 0.5 lc palette notitle" + runs + zero + "\n"
        "unset multiplot\n";
  return write_and_run_multiplot(dir, name, 1650, 1080, "fit of the " + f["law"].get<std::string>() + " law", pre, mp);
}

bool plot_isoflop(const std::string& dir, const std::string& name, const IsoflopFit& fit, const FitColumns& data,
                  const IsoflopBootstrap* boot, double level) {
  std::filesystem::create_directories(dir);
  const json f = isoflop_figure(fit, data, boot, level);
  json pts = f["points"];
  for (const auto& c : f["points"]["C"]) pts["logC"].push_back(std::log10(c.get<double>()));
  json kept = json::object(), cut = json::object();
  for (const char* k : {"N", "loss", "logC"}) kept[k] = json::array(), cut[k] = json::array();
  for (std::size_t i = 0; i < pts["N"].size(); ++i)
    for (const char* k : {"N", "loss", "logC"}) (pts["trimmed"][i].get<bool>() ? cut : kept)[k].push_back(pts[k][i]);
  const json& fr = f["frontier"];
  const bool bands = f["bootstrap"].get<bool>();
  const std::string level_text = fmt::format("{:.0f}%", 100 * level);
  const auto [nlo, nhi] = range_of(pts["N"]);
  const auto [llo, lhi] = range_of(pts["loss"]);
  const auto [clo, chi] = range_of(pts["C"]);
  const auto [fclo, fchi] = range_of(fr["C"]);
  json minima = f["minima"];
  const double lc_lo = std::log10(clo), lc_hi = std::log10(chi) + (chi > clo ? 0 : 1);
  const auto parabolas = dashed_curves("parabolas", f["parabolas"], "C", "N", "loss", lc_lo, lc_hi);
  std::string pre = block("pts", kept, {"N", "loss", "logC"}) + block("cut", cut, {"N", "loss", "logC"}) +
                    parabolas.first +
                    block("minima", minima, {"C", "N", "D", "loss"}) +
                    block("frontier", fr, {"C", "N", "N_lo", "N_hi", "D", "D_lo", "D_hi", "loss_power", "loss", "loss_lo", "loss_hi"}) +
                    kPanelLayout;
  const json& law = f["loss_law"];
  const bool sat = law["fitted"].get<bool>();
  // The panels' y ranges, explicit so that the data's budgets can be shaded over them.
  auto [ylo2, yhi2] = range_of(fr["N"]);
  const auto [dlo2, dhi2] = range_of(fr["D"]);
  ylo2 = std::min(ylo2, range_of(minima["N"]).first) / 2;
  yhi2 = std::max(dhi2, range_of(minima["D"]).second) * 2;
  double ylo3 = range_of(minima["loss"]).first, yhi3 = range_of(minima["loss"]).second;
  for (const char* k : {"loss_power", "loss", "loss_lo", "loss_hi"}) {
    const auto [a, b] = range_of(fr[k]);
    ylo3 = std::min(ylo3, a), yhi3 = std::max(yhi3, b);
  }
  const double pad3 = 0.05 * (yhi3 - ylo3);
  ylo3 -= pad3, yhi3 += pad3;
  const double c0 = f["C_range"][0].get<double>(), c1 = f["C_range"][1].get<double>();
  const auto shade2 = range_shade("range2", c0, c1, ylo2, yhi2), shade3 = range_shade("range3", c0, c1, ylo3, yhi3);
  pre += shade2.first + shade3.first;
  std::string mp = "set multiplot layout 1,3\n";
  mp += kPanelReset +
        fmt::format("set cbrange [{:.5f}:{:.5f}]\nset cblabel 'log_{{10}} C (FLOPs)'\n", lc_lo, lc_hi) +
        "set colorbox\nset rmargin 9\nset logscale x\n" + log_axis("x", nlo / 1.2, nhi * 1.2) +
        fmt::format("set yrange [{:.6g}:{:.6g}]\n", llo - 0.05 * (lhi - llo), lhi + 0.05 * (lhi - llo)) +
        "set xlabel 'N (parameters)'\nset ylabel 'loss'\n@panel_key\nset title 'IsoFLOP slices, their parabolas and minima'\n"
        "plot $pts using 1:2:3 with points pt 7 ps 0.6 lc palette notitle, " + parabolas.second +
        grey_key("points pt 7 ps 0.6", "runs (colour: their budget C)") + ", " +
        grey_key("lines dt 2 lw 1.5", "the slice's parabola (same colour)") +
        (f["trim"].get<double>() > 0 ? ", $cut using 1:2:3 with points pt 6 ps 0.6 lc palette notitle, " +
                                           grey_key("points pt 6 ps 0.6", "trimmed (not in the parabola)")
                                     : std::string()) +
        ", $minima using 2:4 with points pt 6 ps 1.6 lw 2 lc rgb 'black' title 'parabola minimum'\n";
  mp += kPanelReset + "set logscale xy\n" + log_axis("x", fclo, fchi) + log_axis("y", ylo2, yhi2) + "set xlabel 'C (FLOPs)'\nset ylabel 'compute-optimal size'\n@panel_key\nset title " +
        gp_string(fmt::format("N_{{opt}} ∝ C^{{{:.3f}}}, D_{{opt}} ∝ C^{{{:.3f}}}{}", fr["a"].get<double>(), fr["b"].get<double>(),
                              fr.contains("a_interval") && fr["a_interval"][0].is_number()
                                  ? fmt::format(" (a in [{:.3f}, {:.3f}])", fr["a_interval"][0].get<double>(),
                                                fr["a_interval"][1].get<double>())
                                  : "")) +
        "\nplot " + shade2.second +
        (bands ? fmt::format("$frontier using 1:3:4 with filledcurves lc rgb '#0072B2' fs transparent solid 0.18 title "
                             "'{0} band N_{{opt}}', $frontier using 1:6:7 with filledcurves lc rgb '#D55E00' fs "
                             "transparent solid 0.18 title '{0} band D_{{opt}}', ", level_text)
               : std::string()) +
        "$minima using 1:2 with points pt 7 ps 1 lc rgb '#0072B2' title 'N_{opt} of slices', "
        "$frontier using 1:2 with lines dt 2 lw 2 lc rgb '#0072B2' title 'N_{opt} fit', "
        "$minima using 1:3 with points pt 5 ps 1 lc rgb '#D55E00' title 'D_{opt} of slices', "
        "$frontier using 1:5 with lines dt 2 lw 2 lc rgb '#D55E00' title 'D_{opt} fit'\n";
  mp += kPanelReset + "set logscale x\n" + log_axis("x", fclo, fchi) + fmt::format("set yrange [{:.6g}:{:.6g}]\n", ylo3, yhi3) +
        "set xlabel 'C (FLOPs)'\nset ylabel 'loss at the minimum'\n@panel_key\nset title " +
        gp_string(sat ? fmt::format("L_{{opt}} = {:.3g} + {:.3g} C^{{-{:.3f}}}", law["E"].get<double>(), law["A"].get<double>(),
                                    law["gamma"].get<double>())
                      : std::string("L_{opt}: power law (too few slices for E + A C^{-gamma})")) +
        "\nplot " + shade3.second +
        (bands ? fmt::format("$frontier using 1:10:11 with filledcurves lc rgb '#000000' fs transparent solid 0.12 title "
                             "'{} band of L_{{opt}}', ", level_text)
               : std::string()) +
        "$minima using 1:4 with points pt 7 ps 1 lc rgb 'black' title 'L_{opt} of the slices', "
        "$frontier using 1:8 with lines dt 3 lw 2 lc rgb '#7f7f7f' title 'power law'" +
        (sat ? std::string(", $frontier using 1:9 with lines dt 2 lw 2 lc rgb '#000000' title 'E + A C^{-gamma}'") : "") +
        "\nunset multiplot\n";
  return write_and_run_multiplot(dir, name, 1650, 540, "IsoFLOP analysis", pre, mp);
}

}  // namespace scalinglab::fit
