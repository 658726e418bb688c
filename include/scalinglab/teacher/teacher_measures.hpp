#pragma once
#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

// teacher.bound, teacher.optimum (Jeon & Van Roy, "Information-Theoretic Foundations for Neural
// Scaling Laws").
void register_teacher_measures(Registry& registry);

}  // namespace scalinglab
