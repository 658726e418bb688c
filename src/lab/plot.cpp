// Placeholder until plots are implemented.
#include "scalinglab/lab/plot.hpp"

namespace scalinglab {
bool draw_plot(const PlotSpec&, const Table&, const std::string&, const std::string&, const std::string&) {
  return false;
}
}  // namespace scalinglab
