// The simulated pipeline: limiting cases with a known answer, and its accuracy as an exact
// same-component probability.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/skills/skill_simulation.hpp"

using namespace scalinglab;
using namespace scalinglab::skills;

TEST(SkillSimulation, NoLinksWithoutEnoughPathsAllLinksWithoutThreshold) {
  PipelineSpec spec;
  spec.R = 3000, spec.T = 15000, spec.S = 50, spec.L = 3, spec.max_m = 3;
  spec.sigma = [](int) { return 0.0; };
  Stream s(3);
  spec.eta = [](int) { return 1e9; };  // no skill pair is ever composed
  const PipelineResult none = simulate_pipeline(spec, s);
  EXPECT_GT(none.learnt_fraction, 0.99);
  for (int l = 1; l <= 3; ++l) {
    EXPECT_NEAR(none.largest[l], 1.0 / 50, 1e-12) << l;
    EXPECT_EQ(none.same_component[l][2], 0.0) << l;
    EXPECT_EQ(none.same_component[l][1], 1.0) << l;
    EXPECT_EQ(none.acquired[l], 1.0) << l;  // 60 concepts per skill: every skill has a learnt one
  }
  spec.eta = [](int) { return 0.0; };  // every pair linked: one component
  const PipelineResult all = simulate_pipeline(spec, s);
  for (int l = 1; l <= 3; ++l) {
    EXPECT_EQ(all.largest[l], 1.0) << l;
    EXPECT_NEAR(all.same_component[l][3], 1.0, 1e-12) << l;
  }
}

TEST(SkillSimulation, PrerequisitesGateTheHigherLevels) {
  // Few concepts per skill: some skills have no learnt concept and are not acquired, and with many
  // prerequisites few skills of the next level have all of theirs.
  PipelineSpec spec;
  spec.R = 300, spec.T = 1500, spec.S = 200, spec.L = 3, spec.max_m = 2;
  spec.eta = [](int) { return 1.0; };
  spec.sigma = [](int) { return 6.0; };
  Stream s(8);
  const PipelineResult r = simulate_pipeline(spec, s);
  // Level 1: a skill is acquired iff one of its ~1.5 concepts is learnt: about 1 - e^-1.5 = 0.78.
  EXPECT_NEAR(r.acquired[1], 1 - std::exp(-1.5 * r.learnt_fraction), 0.1);
  // Level 2: six prerequisites all acquired: about 0.78^6 = 0.23 of the skills, times 0.78.
  EXPECT_LT(r.acquired[2], 0.4);
  EXPECT_LT(r.acquired[3], r.acquired[2] + 0.05);
  // Two random skills share a component at least as often as they both fall in the largest one.
  for (int l = 1; l <= 3; ++l) {
    const double c = r.largest[l] * 200;
    EXPECT_GE(r.same_component[l][2] + 1e-12, c * (c - 1) / (200.0 * 199.0)) << l;
  }
}
