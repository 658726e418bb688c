// A world of one's own in C++: copy this folder, rename the measure, write `run`. Build and run:
//   cmake -S examples/worlds/cpp/template -B build/template && cmake --build build/template
//   build/scalinglab eval toy.mean n=100 runs=20 --plugin build/template/libmy_world.so
// Here: the squared error of the mean of n samples of N(mu, 1), which decays as 1/n.
#include <scalinglab/world_plugin.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace slp = scalinglab::plugin;

SCALINGLAB_WORLD(world) {
  slp::MeasureDef m;
  m.name = "toy.mean";
  m.summary = "squared error of the empirical mean of n Gaussian samples";
  m.details = "x_i ~ N(mu, 1), i = 1..n; error = (mean - mu)^2, whose expectation is 1/n.";
  m.params = {
      slp::real("mu", "0", "the true mean", -1e6, 1e6),
      slp::integer("n", "100", "samples (the learner's budget: every n sees the same world)", 1, 1e9).same_world_param(),
  };
  m.metrics = {{"error", "(mean - mu)^2"}, {"curve_error", "the error after 1, 2, 4, ... samples", true}};
  m.check = [](const slp::Args& a) {
    if (a.integer("n") > 100000000) throw std::invalid_argument("n above 1e8 takes too long for a toy");
  };
  m.work = [](const slp::Args& a) { return 10.0 * static_cast<double>(a.integer("n")); };
  m.run = [](const slp::Args& a, slp::Result& r) {
    std::mt19937_64 rng(a.seed());  // the task's stream: results depend on the seed only
    std::normal_distribution<double> noise(0.0, 1.0);
    const double mu = a.real("mu");
    const int64_t n = a.integer("n");
    double sum = 0;
    std::vector<double> curve;
    for (int64_t i = 1; i <= n; ++i) {
      sum += mu + noise(rng);
      if ((i & (i - 1)) == 0) curve.push_back(std::pow(sum / static_cast<double>(i) - mu, 2));  // i a power of 2
    }
    r.set("error", std::pow(sum / static_cast<double>(n) - mu, 2));
    r.set_series("curve_error", curve);
  };
  world.add(std::move(m));
}
