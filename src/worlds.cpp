// The list of worlds: the one file that knows every world, above them all. The spine (lab/)
// declares world_registry() and never includes a world; the worlds register their own measures,
// and worlds loaded at run time (external/) add theirs through add_loaded_measure.
#include "scalinglab/factor/factor_measures.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/memory/memory_measures.hpp"
#include "scalinglab/memory/sgd_approx_measures.hpp"
#include "scalinglab/skills/skills_measures.hpp"
#include "scalinglab/teacher/teacher_measures.hpp"

namespace scalinglab {

namespace {

Registry& registry() {
  static Registry r = [] {
    Registry b;
    register_memory_measures(b);
    register_sgd_approx_measures(b);
    register_skills_measures(b);
    register_teacher_measures(b);
    register_factor_measures(b);
    return b;
  }();
  return r;
}

}  // namespace

const Registry& world_registry() { return registry(); }

void add_loaded_measure(Measure m) { registry().add(std::move(m)); }

}  // namespace scalinglab
