#include "scalinglab/memory/memory_measures.hpp"

namespace scalinglab {

void register_memory_measures(Registry& r) {
  Measure m;
  m.name = "memory.error";
  m.summary = "(placeholder)";
  m.params = {int_param("N", "100", "number of input tokens"), count_param("T", "inf", "samples")};
  m.metrics = {{"error", "generalization error"}};
  m.fn = [](const Params& p, Stream& s) {
    Record r;
    r.set("error", s.uniform() / static_cast<double>(p.integer("N")));
    return r;
  };
  r.add(std::move(m));
}

}  // namespace scalinglab
