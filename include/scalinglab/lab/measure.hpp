#pragma once
// Measures: named functions `world.name` of typed parameters and a random stream that return a
// record of metrics. The registry is keyed by name; worlds register their measures explicitly.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "scalinglab/core/random.hpp"
#include "scalinglab/lab/param.hpp"

namespace scalinglab {

// One run's output: scalar metrics and, where natural, series (e.g. a learning curve).
struct Record {
  std::vector<std::pair<std::string, double>> scalars;
  std::vector<std::pair<std::string, std::vector<double>>> series;

  void set(const std::string& name, double value);
  void set_series(const std::string& name, std::vector<double> values);
  double get(const std::string& name) const;  // throws std::out_of_range
};

struct MetricSpec {
  std::string name;
  std::string doc;
  bool series = false;  // a vector rather than a scalar
};

using MeasureFn = std::function<Record(const Params&, Stream&)>;

struct Measure {
  std::string name;     // "world.name"
  std::string summary;  // one line
  std::string details;  // a paragraph for `describe` (conventions, paper references)
  std::vector<ParamSpec> params;  // the registry appends `runs` and `seed`
  std::vector<MetricSpec> metrics;
  MeasureFn fn;
  bool deterministic = false;  // ignores the stream (theory); runs > 1 is pointless

  const ParamSpec* param(const std::string& name) const;
};

class Registry {
 public:
  void add(Measure m);  // throws std::logic_error on duplicates
  const Measure& get(const std::string& name) const;  // throws InputError listing the known names
  std::vector<const Measure*> all() const;

 private:
  std::vector<Measure> measures_;
};

// The registry with every built-in world's measures.
const Registry& builtin_registry();

}  // namespace scalinglab
