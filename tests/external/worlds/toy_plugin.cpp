// A plugin for the tests: a measure drawing from the task's seed, one that throws at a chosen value,
// and a check refusing a parameter set.
#include <cmath>
#include <random>
#include <stdexcept>

#include "scalinglab/world_plugin.hpp"

namespace slp = scalinglab::plugin;

SCALINGLAB_WORLD(world) {
  slp::MeasureDef m;
  m.name = "toy.draw";
  m.summary = "a uniform draw from the task's seed, scaled; throws at scale = 13";
  m.params = {slp::real("scale", "1", "multiplies the draw", 0, 100), slp::integer("k", "4", "length of the series", 1, 1000),
              slp::count("T", "inf", "a count: inf or a positive integer")};
  m.metrics = {{"value", "scale times a uniform draw"}, {"curve", "k draws", true}};
  m.run = [](const slp::Args& a, slp::Result& r) {
    if (a.real("scale") == 13) throw std::runtime_error("thirteen is unlucky");
    std::mt19937_64 rng(a.seed());
    std::uniform_real_distribution<double> u(0, 1);
    if (!a.has("T") || a.has("runs")) throw std::logic_error("the task's parameters are the declared ones");
    if (!std::isinf(a.real("T")) && a.real("T") < 1) throw std::logic_error("a count below 1 reached the plugin");
    r.set("value", a.real("scale") * u(rng));
    std::vector<double> c;
    for (int64_t i = 0; i < a.integer("k"); ++i) c.push_back(u(rng));
    r.set_series("curve", c);
  };
  m.check = [](const slp::Args& a) {
    if (a.real("scale") > 50 && a.integer("k") > 500) throw std::invalid_argument("scale > 50 with k > 500 is refused");
  };
  m.work = [](const slp::Args& a) { return 10.0 * static_cast<double>(a.integer("k")); };
  world.add(std::move(m));

  slp::MeasureDef bad;  // declares a metric it never sets
  bad.name = "toy.forgetful";
  bad.summary = "forgets its metric";
  bad.metrics = {{"value", "never set"}};
  bad.run = [](const slp::Args&, slp::Result&) {};
  world.add(std::move(bad));
}
