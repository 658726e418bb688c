#pragma once
#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

// skills.threshold, skills.peel, skills.learnt, skills.optimum, ... ("An Information Theory of
// Compute-Optimal Size Scaling, Emergence, and Plateaus in Language Models").
void register_skills_measures(Registry& registry);

}  // namespace scalinglab
