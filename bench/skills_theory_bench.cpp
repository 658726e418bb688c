// Speed of the skills world's theory, one thread, medians of repetitions: the BP threshold of the
// regular (3, 6) ensemble and of the paper's parent ensemble at Chinchilla's size (to about 1e-12),
// one compute-optimal allocation, and Figure 4's curves (46 budgets, each with its optimum and the
// 100-level recursion, for the homogeneous, unimodal and multimodal tasks).
// Usage: bench_skills_theory [reps=20]. Prints one JSON object.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_timing.hpp"
#include "scalinglab/skills/compute_optimal.hpp"
#include "scalinglab/skills/emergence.hpp"

using namespace scalinglab::skills;
using namespace scalinglab::bench;

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  auto time_it = [&](auto&& f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      f();
      t.push_back(seconds_since(t0));
    }
    return median(t);
  };
  double sink = 0;
  const Ensemble regular{DegreeDistribution::regular(3), DegreeDistribution::regular(6)};
  const double t_regular = time_it([&] { sink += bp_threshold(regular).epsilon_star; });
  const double R = 3.5e5, T = 1.75e6, p = 6 / R;
  const Ensemble parent{DegreeDistribution::binomial(T, p), DegreeDistribution::binomial(R / 0.5, p)};
  const double t_parent = time_it([&] { sink += bp_threshold(parent).epsilon_star; });
  ComputeBudget b;
  const double t_optimum = time_it([&] { sink += compute_optimum(b).R; });
  // Figure 4: 46 budgets from 1e18 to 1e27; three tasks share each budget's recursion.
  std::vector<double> qm(8, 0.0);
  for (int m = 2; m <= 7; ++m) qm[static_cast<std::size_t>(m)] = 1.0 / 6;
  const auto unimodal = binomial_mixture(100, {1}, {0.5}), multimodal = binomial_mixture(100, {0.4, 0.4, 0.2}, {0.2, 0.6, 0.95});
  const double t_figure4 = time_it([&] {
    for (int i = 0; i < 46; ++i) {
      ComputeBudget c;
      c.C = std::pow(10.0, 18 + 9.0 * i / 45);
      const ComputeOptimum o = compute_optimum(c);
      SkillHierarchy h;
      h.R = o.R, h.T = o.T;
      h.eta = [](int l) { return std::exp(7.0 * l / 100); };
      h.sigma = [](int l) { return std::log2(double(l)); };
      const SkillLevels s = skill_levels(h);
      sink += std::pow(s.gamma[50], 4) + task_accuracy(s, unimodal, qm) + task_accuracy(s, multimodal, qm);
    }
  });
  std::printf("{\"threads\": 1, \"reps\": %d, \"threshold_regular_3_6_us\": %.1f, \"threshold_parent_chinchilla_us\": %.1f, "
              "\"compute_optimum_ms\": %.2f, \"figure4_three_curves_46_budgets_ms\": %.1f, \"checksum\": %.6g}\n",
              reps, t_regular * 1e6, t_parent * 1e6, t_optimum * 1e3, t_figure4 * 1e3, sink);
  return 0;
}
