#pragma once
// Figures of the fits (gnuplot; DIR/NAME.svg, .png, .pdf and the .gp script with its data inline),
// drawn whole or as the panels named in `panels` (fit_panels.hpp; empty: all), in that order:
//   two-input law: the fitted law's IsoFLOP curves over the runs (isoflop), the loss against D/N
//                  (ratio), the frontier N_opt(C), D_opt(C) with bootstrap bands (frontier), the
//                  log residuals against the fit, N and D (residuals, residuals-N, residuals-D);
//   one-input law: the data with the fitted curve (law), the log residuals (residuals, residuals-x);
//   IsoFLOP analysis: the slices with their parabolas and minima (isoflop), N_opt(C) and D_opt(C)
//                  with their fits and bands (frontier), the loss at the minima (loss).
// Each panel is 3.3 in wide in the PDF (a column of a two-column paper), its legend below its
// axes. A panel asked for that the figure lacks is left out with a warning; false when none is
// left or gnuplot fails.
#include <string>
#include <vector>

#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

bool plot_law_fit(const std::string& dir, const std::string& name, const LawFit& fit, const FitColumns& data,
                  const Bootstrap* boot, double level, const std::vector<std::string>& panels = {});

bool plot_isoflop(const std::string& dir, const std::string& name, const IsoflopFit& fit, const FitColumns& data,
                  const IsoflopBootstrap* boot, double level, const std::vector<std::string>& panels = {});

}  // namespace scalinglab::fit
