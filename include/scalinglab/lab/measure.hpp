#pragma once
// Measures: named functions `world.name` of typed parameters and a random stream that return a
// record of metrics. The registry is keyed by name; worlds register their measures explicitly.
#include <deque>
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
  // What its records depend on besides the parameters, the stream and the lab's own sources: a
  // loaded world's file, as a digest ("python <sha-256>"); empty for a built-in measure. Part of
  // the task cache's key (results/task_cache.hpp), so an edited world never reuses a record.
  std::string code;
  // Bytes one run allocates at its peak, estimated from its parameters (null: a few MB at most).
  // Checked against the memory limit before anything runs (lab/limits.hpp).
  std::function<double(const Params&)> memory;
  // Elementary operations of one run, estimated from its parameters (null: negligible, well under a
  // second). Checked against --max-work before anything runs (lab/limits.hpp).
  std::function<double(const Params&)> work;
  // The measure's own check of a whole parameter set: relations between parameters and derived
  // values that no single range expresses (null: none). Throws InputError. Run for every task of a
  // sweep before the first one starts, and by eval, so a bad task is refused before any work.
  std::function<void(const Params&)> check;

  const ParamSpec* param(const std::string& name) const;
};

// InputError naming what is wrong when a declaration is not one the lab can run: a name that is not
// "world.name", a parameter or metric named twice or not an identifier, a parameter named `runs`
// or `seed` (the registry adds them), a range with min > max, a choice whose default is not one of
// its choices, a default that does not resolve, no metric, no function.
// (A summary and doc lines are wanted for `describe`, not required: toy measures of tests have none.) Built-in and loaded worlds'
// measures pass the same check, with the same messages.
void check_declaration(const Measure& m);

class Registry {
 public:
  // check_declaration, then: throws InputError when the name is taken.
  void add(Measure m);
  const Measure& get(const std::string& name) const;  // throws InputError listing the known names
  std::vector<const Measure*> all() const;

 private:
  std::deque<Measure> measures_;  // a deque: references stay valid as loaded worlds add measures
};

// Building blocks of the Measure::memory estimates.
// Packing buffers of the BLAS and Eigen's matrix products.
inline constexpr double kProductWorkspaceBytes = 8e6;
// Bytes a series metric of `values` numbers costs at its peak: the run's vector, the copies
// `evaluate` keeps (the records of a block of up to 4096 runs, the first record, a running
// summary) and its JSON array (about 80 bytes per value and 8 per run of the block).
double series_bytes(const Params& params, double values);

// InputError when `concurrent` runs of `m` at `params` would need more memory than the limit
// allows, naming the measure, its estimate and the limit.
void check_memory(const Measure& m, const Params& params, int concurrent);

// InputError when one run of `m` at `params` would take more operations than --max-work allows.
void check_work(const Measure& m, const Params& params);

// Everything checked of one task before any task runs: the measure's own check, then memory for
// `concurrent` runs, then work. InputError on the first that fails.
void check_task(const Measure& m, const Params& params, int concurrent);

// The registry with every built-in world's measures and those of the worlds loaded at run time (a
// C++ plugin, a Python world: external/). Defined above the worlds, in src/worlds.cpp (the one file
// that lists them), so that the spine never includes a world.
const Registry& world_registry();

// Adds a loaded world's measure to world_registry() (check_declaration first). Called while the
// command line or the Python module loads a world, before any task runs: not concurrently with runs.
void add_loaded_measure(Measure m);

}  // namespace scalinglab
