#pragma once
// The one entry point to drawing: a sweep's figure description (its [plot], title, parts and grid
// axes) and its data in, the figure's files out (NAME.gp, NAME.dat, NAME.svg, NAME.png, NAME.pdf).
// The kinds of figure are its parts: lines and curves (plot.hpp), heat maps (heatmap.hpp), scatter
// plots (scatter.hpp), the last two laid out in panels (panels.hpp).
#include <string>
#include <vector>

#include "scalinglab/results/aggregate.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

// What a figure is drawn from: the aggregated table (lines: means per grid point) and the grid
// points with their records (curves, heat maps and scatter plots draw series metrics of the runs).
struct FigureData {
  const Table& table;
  const std::vector<GridPoint>& points;
  const std::vector<TaskResult>& records;
};

// Draws the sweep's [plot] into OUT_DIR/NAME.*, titled with the sweep's title (or its name), the
// panels of multi-panel kinds titled with the part and the grid axes. Returns whether it was drawn
// (false without a [plot]). Never throws: a figure that cannot be drawn warns on stderr, so that it
// never costs the results.
bool draw_figure(const Sweep& sweep, const FigureData& data, const std::string& out_dir, const std::string& name);

}  // namespace scalinglab
