#pragma once
// The whole concept -> skill -> composition pipeline simulated (beyond the paper, Section 2):
//   1. a binomial concept-text graph (R concepts, T texts, edge probability d_t / R), peeled: the
//      concepts learnt;
//   2. at each level l = 1..L every concept is attached to a uniformly random skill of the S skills
//      of that level, and every level-l skill to round(sigma_l) uniformly random prerequisites of
//      level l - 1;
//   3. a skill is acquired when all its prerequisites are acquired and at least one of its concepts
//      is learnt (level 1: no prerequisites) (Sec. 2.4);
//   4. two skills of level l are linked when at least eta_l distinct concept pairs (r1, r2) that
//      co-occur in a text join them (r1 attached to one, r2 to the other) and the prerequisites of
//      both are acquired; the components of that skill graph come from union-find;
//   5. a task of m skills of level l succeeds when they are pairwise connected, i.e. in one
//      component: probability sum_i C(c_i, m) / C(S, m) over component sizes c_i, exactly.
// Each unordered co-occurring concept pair counts once for the skill pair it joins; the paper's
// p_rr counts one orientation of it, so its mean number of paths is half the simulated one.
#include <functional>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::skills {

struct PipelineSpec {
  uint32_t R = 2000, T = 10000;
  double d_t = 6;
  uint32_t S = 100;
  int L = 10;
  std::function<double(int)> eta;    // eta_l
  std::function<double(int)> sigma;  // sigma_l (rounded to an integer number of prerequisites)
  int max_m = 7;                     // task sizes m = 0..max_m are evaluated
};

struct PipelineResult {
  double learnt_fraction = 0;           // concepts learnt by peeling / R
  uint64_t concept_pairs = 0;           // distinct co-occurring concept pairs
  std::vector<double> largest;          // per level 0..L: largest component / S (level 0: 1)
  std::vector<double> acquired;         // per level: acquired skills / S (level 0: 1)
  std::vector<std::vector<double>> same_component;  // [l][m]: Pr(m random skills of level l connected)
};

PipelineResult simulate_pipeline(const PipelineSpec& spec, Stream& s);

}  // namespace scalinglab::skills
