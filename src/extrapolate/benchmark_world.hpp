#pragma once
// A world of the extrapolation benchmark as its file describes it: the protocol's [extrapolate]
// table (size, data, N, D, loss, and the learning curves Approach 1 reads) and the [benchmark]
// table (budgets, sizes, horizons, designs, truth). Everything is read and checked before any run.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "scalinglab/extrapolate/extrapolation_benchmark.hpp"
#include "scalinglab/extrapolate/protocol_world.hpp"
#include "scalinglab/lab/measure.hpp"

namespace scalinglab::extrapolate {

// A design of the small-budget runs: budgets per decade, sizes per budget, runs per point.
struct Design {
  std::string name;
  double per_decade = 3, sizes = 7, runs = 1;
  std::vector<double> budgets;  // derived
  // The one knob this design changes from the main design ("per_decade", "sizes", "runs"), "main"
  // for the main design itself, "several" when it changes more than one.
  std::string knob;
};

struct BenchSpec {
  std::vector<double> budgets, sizes, horizons{10, 100};
  double shift = 0, replications = 20, truth_sizes = 11, truth_spread = 4, truth_runs = 16, bootstrap = 100;
  // The truth's precision: runs are added to a slice (up to truth_max_runs per point) until its 95%
  // interval on N_opt is within +-truth_precision of N_opt; otherwise the horizon is unidentified.
  double truth_precision = 0.1, truth_max_runs = 0;  // 0: 4 x truth_runs
  double refine = 1;  // finer slices around the truth's minimum (a V-shaped optimum needs them)
  std::vector<Design> designs;
  std::string main;  // the design of the leaderboard (default: the first)
  // The methods run on the designs other than the main one (empty: every method), so that the
  // design-cost comparison does not multiply the cost of the whole leaderboard.
  std::vector<std::string> design_methods;
};

struct World {
  std::string path, name;
  toml::table doc;
  protocol::Spec spec;
  BenchSpec bench;
  const Measure* measure = nullptr;
  std::unique_ptr<protocol::Model> model;
  std::uint64_t seed = 0;
  int replications = 0;
  bool size_integer = false;  // the size knob is rounded by the measure: round before computing D
  std::size_t main_design() const;
};

World load_world(const std::string& path, const BenchmarkOptions& o);

// The doc of one sweep of the world: its seed and runs per point.
toml::table with_seed(const World& w, std::uint64_t seed, double runs);

// A run at budget C with the size knob near `size`: the knob rounded first (as the measure will),
// then the data knob computed for that rounded size, so that 6 N D = C holds for the run itself.
protocol::Planned plan_at(const World& w, double size, double C);

// The runs of a design: at each budget, sizes log-spaced over the world's range (moved as C^shift).
std::vector<protocol::Planned> design_plan(const World& w, const Design& d);

}  // namespace scalinglab::extrapolate
