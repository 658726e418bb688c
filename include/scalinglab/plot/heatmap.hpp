#pragma once
// Heat-map figures ([plot] kind = "heatmap"): a series metric of each selected grid point drawn as
// a rows x cols matrix, one panel per point, e.g. the memory matrices (u_y^T W e_x)_{y,x} of
// Cabannes et al., Figure 11. Writes NAME.dat, NAME.gp, NAME.svg and NAME.png.
#include <string>
#include <vector>

#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

// Panels follow grid order; each shows the lowest run index present for its point and is titled
// with the values of `axes` (the sweep's grid axes). Returns false (with a warning) when nothing
// could be drawn.
bool draw_heatmaps(const PlotSpec& plot, const std::vector<GridPoint>& points, const std::vector<TaskResult>& results,
                   const std::vector<std::string>& axes, const std::string& out_dir, const std::string& name,
                   const std::string& title);

}  // namespace scalinglab
