// A plugin whose declaration the lab refuses (a parameter named twice), with the message it gives
// the built-in measures.
#include "scalinglab/world_plugin.hpp"

namespace slp = scalinglab::plugin;

SCALINGLAB_WORLD(world) {
  slp::MeasureDef m;
  m.name = "twice.x";
  m.summary = "declares x twice";
  m.params = {slp::real("x", "1", "first"), slp::real("x", "2", "second")};
  m.metrics = {{"y", "unused"}};
  m.run = [](const slp::Args&, slp::Result&) {};
  world.add(std::move(m));
}
