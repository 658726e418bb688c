#pragma once
// A loaded world's measure as its declaration says: the JSON a C++ plugin (world_plugin.hpp) or a
// Python world (scalinglab.worlds) sends, read into the lab's own Measure so that it is checked,
// described, swept, checked against claims and fitted exactly as a built-in measure is.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scalinglab/lab/measure.hpp"

namespace scalinglab::external {

// The declaration's fields (docs/worlds.md):
//   name, summary, details, deterministic,
//   params: [{name, type (int, real, count, choice, bool), default, doc, min, max, choices,
//             same_world, expression}],
//   metrics: [{name, doc, series}],
//   work, memory: formulas of the numeric parameters (operations, bytes of one run), optional.
// Everything but the function: `fn` (and `check`, `work`, `memory` when given as functions) is the
// loader's. Throws InputError prefixed by `source` for an unknown field, a wrong type or an
// unreadable formula; the measure's own declaration check (check_declaration) comes at registration.
Measure measure_from_declaration(const nlohmann::json& declaration, const std::string& source);

// Adds a loaded world's measures to world_registry(), all or none: InputError (prefixed by `source`)
// when a name is taken, before any is added. Returns their names.
std::vector<std::string> register_loaded(std::vector<Measure> measures, const std::string& source);

// std::runtime_error (a failed task) unless the record holds every metric the measure declares,
// scalars as scalars and series as series, and nothing else: a loaded world's slip is caught at
// the task that made it, not in a table later.
void check_record(const Measure& m, const Record& r);

}  // namespace scalinglab::external
