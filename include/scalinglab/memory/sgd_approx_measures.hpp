#pragma once
#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

// memory.sgd_approx and memory.sgd_approx_iterates: the approximation of SGD of Section 4
// (eqs. 19-20, 56) of Cabannes, Dohmatob, Bietti 2023. See scalinglab/memory/sgd_approx.hpp.
void register_sgd_approx_measures(Registry& registry);

}  // namespace scalinglab
