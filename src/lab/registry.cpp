#include "scalinglab/lab/measure.hpp"
#include "scalinglab/memory/memory_measures.hpp"

namespace scalinglab {

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    register_memory_measures(r);
    return r;
  }();
  return registry;
}

}  // namespace scalinglab
