#pragma once
#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

// memory.error, memory.infinite_memory_error, ... (Cabannes, Dohmatob, Bietti 2023).
void register_memory_measures(Registry& registry);

}  // namespace scalinglab
