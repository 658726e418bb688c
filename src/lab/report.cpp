// Placeholder until reproduce is implemented.
#include "scalinglab/lab/report.hpp"

namespace scalinglab {
std::string find_experiments_dir(const std::string& hint) { return hint; }
ReproduceOutcome reproduce(const ReproduceOptions&) { return {}; }
}  // namespace scalinglab
