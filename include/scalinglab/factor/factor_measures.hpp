#pragma once
#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

// factor.complexity, factor.train (Arnal et al. 2024).
void register_factor_measures(Registry& reg);

}  // namespace scalinglab
