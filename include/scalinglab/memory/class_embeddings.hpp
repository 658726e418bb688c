#pragma once
// Input embeddings tied to their class (Cabannes, Dohmatob, Bietti, Proposition 5, Appendix A.9):
// e_x = u_{f*(x)}, with the unembeddings of the P most frequent classes uniform on the sphere (so
// eta-quasi-orthogonal for eta their coherence) and u_y = 0 for the other classes. The memory
// W = sum_x q0(x) u_{f*(x)} e_x^T then reads sum_y q(y) u_y u_y^T with q(y) = sum_{x: f*(x)=y} q0(x),
// and an input's error depends on its class alone.
#include <cstddef>
#include <vector>

#include "scalinglab/core/random.hpp"
#include "scalinglab/memory/zipf_task.hpp"

namespace scalinglab::memory {

enum class ClassScheme {
  uniform,  // q(y) = 1/P on the P most frequent classes: the thresholding scheme q_* of Prop. 5
  p,        // q0 = p, so q(y) = p(y) for every class
};

struct ClassEmbeddingResult {
  double error = 0;       // p-mass of inputs whose true class does not have the strictly largest score
  double bound = 0;       // (49) with the proof's indicator: p({x : f*(x) not in [P] or q(f*(x)) < 2 eta |q|_inf + 2 eta^2 |q|_1})
  double eta = 0;         // coherence of the P stored unembeddings
  double tail_mass = 0;   // p-mass of the inputs whose class is not among the P most frequent
};

// `tied` = false draws each e_x independently on the sphere instead (the random-embedding memory of
// Sections 2-3 with the same q0): the counterfactual without Prop. 5's mechanism.
ClassEmbeddingResult class_embedding_memory(const ZipfTask& task, std::size_t d, std::size_t P, ClassScheme scheme,
                                            bool tied, Stream& stream);

}  // namespace scalinglab::memory
