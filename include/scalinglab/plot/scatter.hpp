#pragma once
// Scatter figures of 2-D embeddings ([plot] kind = "scatter"), one panel per selected grid point
// (first run): the points of a series metric read as n x 2 row-major (e.g. learned input embeddings
// e_x), coloured by a class series (e.g. f*(x)); optionally "centers", an m x 2 series (e.g. the
// unembeddings u_y) drawn as arrows from the origin (one common scale), with the plane shaded by the class of
// argmax_y <u_y, u>, the decision regions of Cabannes et al., Figure 9 (left).
// Writes NAME.dat, NAME.gp, NAME.svg, NAME.png and NAME.pdf.
#include <string>
#include <vector>

#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

// Returns false (with a warning) when nothing could be drawn.
bool draw_scatter(const PlotSpec& plot, const std::vector<GridPoint>& points, const std::vector<TaskResult>& results,
                  const std::vector<std::string>& axes, const std::string& out_dir, const std::string& name,
                  const std::string& title);

}  // namespace scalinglab
