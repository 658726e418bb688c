#pragma once
#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

// memory.error, memory.infinite_memory_error, ... (Cabannes, Dohmatob, Bietti 2023).
void register_memory_measures(Registry& registry);

// memory.coherence (Lemma 1) and memory.class_embeddings (Proposition 5); called by the above.
void register_embedding_measures(Registry& registry);

// The data parameters shared by the memory measures (N, M, alpha, f), declared once so that one
// sweep grid fits all of them.
std::vector<ParamSpec> zipf_task_params();

}  // namespace scalinglab
