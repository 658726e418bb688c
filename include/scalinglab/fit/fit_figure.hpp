#pragma once
// What the figures of a fit draw, computed once: the gnuplot figures (fit_plot.cpp) and Python's
// plot_fit render the same numbers. JSON, so that Python receives it as a dict of lists.
//
// A two-input law ("kind": "law2"): the runs (N, D, C, loss, the fitted loss, the log residual
// fit - data), the fitted law's IsoFLOP curves at the data's budgets, its curves of loss against
// D/N at a few model sizes, the frontier N_opt(C), D_opt(C), L_opt(C) from the smallest budget to
// 100x the largest with bootstrap bands, the data's range of C and, for IsoFLOP designs, each
// slice's lowest-loss run. A one-input law ("law1"): the points, the curve, the residuals. An
// IsoFLOP analysis ("isoflop"): the runs (trimmed ones flagged), each slice's parabola and minimum,
// the regressions with bands, the loss at the minima (power law and saturating law) with bands.
//
// Every kind also carries: "panels", the names of the panels it can draw (fit_panels.hpp);
// "labels", the axis labels of its inputs and loss from the user's column names ("N (params)"),
// or the fit's unit ("N (parameters)") for a column derived, rescaled (--N-scale) or named by
// its symbol; "law_label", what legends call the law. Of a table of more than kFigureMaxPoints
// runs, the points are an evenly spaced subsample: "points_shown" of "points_total" (the curves,
// ranges and slice minima still come from every row; the fit itself is not touched).
#include <nlohmann/json.hpp>

#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

nlohmann::json law_fit_figure(const LawFit& fit, const FitColumns& data, const Bootstrap* boot, double level);
nlohmann::json isoflop_figure(const IsoflopFit& fit, const FitColumns& data, const IsoflopBootstrap* boot, double level);

// Whether runs form an IsoFLOP design: most of them (at least half) in budgets (C within 10%) of
// 3 or more distinct model sizes. Otherwise (grids of N and D, scattered runs) the figures draw the
// loss against D/N instead of IsoFLOP curves.
bool isoflop_design(const std::vector<double>& C, const std::vector<double>& N);

}  // namespace scalinglab::fit
