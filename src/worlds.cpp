// The list of worlds: the one file that knows every world, above them all. The spine (lab/)
// declares builtin_registry() and never includes a world; the worlds register their own measures.
#include "scalinglab/factor/factor_measures.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/memory/memory_measures.hpp"
#include "scalinglab/memory/sgd_approx_measures.hpp"
#include "scalinglab/skills/skills_measures.hpp"
#include "scalinglab/teacher/teacher_measures.hpp"

namespace scalinglab {

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    register_memory_measures(r);
    register_sgd_approx_measures(r);
    register_skills_measures(r);
    register_teacher_measures(r);
    register_factor_measures(r);
    return r;
  }();
  return registry;
}

}  // namespace scalinglab
