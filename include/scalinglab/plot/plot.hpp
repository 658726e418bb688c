#pragma once
// Plots drawn with gnuplot: the aggregated means per series with a shaded band, log axes, and
// reference curves evaluated from formulas. Writes NAME.gp, NAME.dat, NAME.svg, NAME.png and NAME.pdf.
#include <string>

#include <vector>

#include "scalinglab/plot/gnuplot.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

struct Table;

// Draws `plot` from `table` into `out_dir` with base name `name`. Returns false (with a warning on
// stderr) when gnuplot is missing or fails: a missing plot never loses the results.
bool draw_plot(const PlotSpec& plot, const Table& table, const std::string& out_dir, const std::string& name,
               const std::string& title);

// Draws a plot of kind "curves": series metrics of each selected grid point (y against the x series,
// or against the 1-based position when plot.x is empty), averaged pointwise over the runs.
bool draw_series_plot(const PlotSpec& plot, const std::vector<GridPoint>& points,
                      const std::vector<TaskResult>& results, const std::string& out_dir, const std::string& name,
                      const std::string& title);

}  // namespace scalinglab
