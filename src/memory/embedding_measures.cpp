// Measures of the memory world about embeddings rather than schemes: the coherence of random families
// (Lemma 1) and input embeddings tied to their class (Proposition 5).
#include <algorithm>
#include <cmath>

#include "scalinglab/memory/class_embeddings.hpp"
#include "scalinglab/memory/memory_measures.hpp"
#include "scalinglab/memory/quasi_orthogonal.hpp"
#include "scalinglab/memory/zipf_task.hpp"

namespace scalinglab {

namespace {

using namespace memory;

enum : uint64_t { kEmbeddingLabelStream = 2, kEmbeddingFamilyStream = 3 };

Record coherence_run(const Params& prm, Stream& stream) {
  const auto d = static_cast<std::size_t>(prm.integer("d"));
  const auto P = static_cast<std::size_t>(prm.integer("P"));
  Stream family = stream.substream(kEmbeddingFamilyStream);
  const double c = coherence(sphere_family(d, P, family));
  const double eta = prm.real("eta_scale") * std::sqrt(std::log(static_cast<double>(P)) / static_cast<double>(d));
  Record r;
  r.set("coherence", c);
  r.set("eta", eta);
  r.set("quasi_orthogonal", c <= eta ? 1.0 : 0.0);
  r.set("probability_bound", quasi_orthogonal_probability_bound(d, P, eta));
  return r;
}

// The d x P family and its P x P Gram matrix, with the rank update's temporary of the same size.
double coherence_bytes(const Params& prm) {
  const double d = prm.real("d"), P = prm.real("P");
  return 8 * (d * P + 2 * P * P) + kProductWorkspaceBytes;
}

Record class_embeddings_run(const Params& prm, Stream& stream) {
  const auto N = static_cast<std::size_t>(prm.integer("N"));
  const auto M = static_cast<std::size_t>(prm.integer("M"));
  Stream labels = stream.substream(kEmbeddingLabelStream);
  const ZipfTask task = make_zipf_task(N, M, prm.real("alpha"), prm.choice("f"), labels);
  const auto P = static_cast<std::size_t>(std::max(prm.real("P"), 1.0));
  const ClassScheme scheme = prm.choice("scheme") == "p" ? ClassScheme::p : ClassScheme::uniform;
  Stream embeddings = stream.substream(kEmbeddingFamilyStream);
  const ClassEmbeddingResult res =
      class_embedding_memory(task, static_cast<std::size_t>(prm.integer("d")), P, scheme, prm.flag("tied"), embeddings);
  Record r;
  r.set("error", res.error);
  r.set("bound", res.bound);
  r.set("eta", res.eta);
  r.set("tail_mass", res.tail_mass);
  r.set("stored_classes", static_cast<double>(std::min(P, M)));
  return r;
}

// The task (about 60 bytes per input), the class marginals and ranks, the d x P family, Gram and
// score matrices, and the untied memory's P x d sums.
double class_embeddings_bytes(const Params& prm) {
  const double N = prm.real("N"), M = prm.real("M"), d = prm.real("d"), P = std::min(prm.real("P"), M);
  return 60 * N + 40 * M + 8 * (2 * d * P + 3 * P * P + 2 * d) + kProductWorkspaceBytes;
}

}  // namespace

void register_embedding_measures(Registry& r) {
  {
    Measure m;
    m.name = "memory.coherence";
    m.summary = "Lemma 1: coherence of P random unit vectors in R^d against eta = 2 sqrt(log(P)/d)";
    m.details =
        "Cabannes, Dohmatob, Bietti, Definition 1, Lemma 1 and its proof (Appendix A.2). Draws P vectors\n"
        "uniformly on the unit sphere of R^d; coherence = max_{z != z'} |<u_z, u_z'>|, the family's smallest\n"
        "eta. quasi_orthogonal = 1 when coherence <= eta = eta_scale sqrt(log(P)/d) (Lemma 1: eta_scale = 2),\n"
        "so its mean over runs is the chance a random family is eta-quasi-orthogonal, which the proof bounds\n"
        "below by 1 - P(P-1)/2 sqrt(2/pi) (eta^2 d)^(-1/2) exp(-eta^2 d/2) (probability_bound).";
    m.params = {int_param("d", "64", "dimension", 1, 1e5), int_param("P", "100", "number of vectors", 2, 1e5),
                real_param("eta_scale", "2", "c in eta = c sqrt(log(P)/d); Lemma 1 has c = 2", 0, 100).same_world_param()};
    m.metrics = {{"coherence", "max_{z != z'} |<u_z, u_z'>| of the family"},
                 {"eta", "eta_scale sqrt(log(P)/d)"},
                 {"quasi_orthogonal", "1 if the family is eta-quasi-orthogonal (coherence <= eta), else 0"},
                 {"probability_bound", "Appendix A.2's lower bound on the chance of quasi-orthogonality"}};
    m.fn = coherence_run;
    m.memory = coherence_bytes;
    r.add(std::move(m));
  }
  {
    Measure m;
    m.name = "memory.class_embeddings";
    m.summary = "Proposition 5: input embeddings tied to their class, e_x = u_{f*(x)}, and the bound (49)";
    m.details =
        "Cabannes, Dohmatob, Bietti, Proposition 5 (Appendix A.9). The P most frequent classes get unembeddings\n"
        "uniform on the sphere (eta-quasi-orthogonal, eta = their coherence), the others u_y = 0; inputs are\n"
        "embedded as their class, e_x = u_{f*(x)} (tied=false: e_x uniform on the sphere instead). The memory\n"
        "W = sum_x q0(x) u_{f*(x)} e_x^T with q(y) = sum_{x: f*(x)=y} q0(x) = 1/P on the stored classes\n"
        "(scheme=uniform, Prop. 5's thresholding scheme q_*) or q0 = p (scheme=p). error: p-mass of inputs\n"
        "whose class does not have the strictly largest score (ties, as for the classes with u_y = 0, are\n"
        "errors). bound: (49) with the indicator its proof derives, p({x : f*(x) not among the P stored or\n"
        "q(f*(x)) < 2 eta |q|_inf + 2 eta^2 |q|_1}); as printed, 1{f*(x) not in [P]} q(f*(x)) < ... holds for\n"
        "every x, a bound of 1 (docs/memory.md). With f = mod and M = N each input is its own class, so the\n"
        "classes follow the inputs' Zipf law (beta = alpha).";
    m.params = zipf_task_params();
    m.params.push_back(int_param("d", "64", "dimension", 1, 1e5));
    m.params.push_back(int_param("P", "d/(8*log(d))", "number of stored classes (formula of d allowed; at least 1)", 0, 1e6)
                           .allow_expression());
    m.params.push_back(choice_param("scheme", "uniform", {"uniform", "p"},
                                    "q(y) = 1/P on the stored classes (uniform) or q0 = p (p)"));
    m.params.push_back(bool_param("tied", "true", "e_x = u_{f*(x)} (Prop. 5); false: e_x uniform on the sphere").same_world_param());
    m.metrics = {{"error", "generalization error (5) of W_q0"},
                 {"bound", "Proposition 5's bound (49), with the indicator of its proof"},
                 {"eta", "coherence of the stored unembeddings (their eta in Definition 1)"},
                 {"tail_mass", "p-mass of the inputs whose class is not stored"},
                 {"stored_classes", "number of classes with a nonzero unembedding, min(P, M)"}};
    m.fn = class_embeddings_run;
    m.memory = class_embeddings_bytes;
    r.add(std::move(m));
  }
}

}  // namespace scalinglab
