// Reading and checking a world file of the extrapolation benchmark, and planning its runs.
#include "benchmark_world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/fit/fit_method.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/lab/param.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/sweep/sweep.hpp"
#include "truth_slice.hpp"

namespace scalinglab::extrapolate {

using namespace fit;
using namespace protocol;

std::size_t World::main_design() const {
  for (std::size_t j = 0; j < bench.designs.size(); ++j)
    if (bench.designs[j].name == bench.main) return j;
  return 0;
}

namespace {

std::string at(const World& w) { return w.path + ": [benchmark] "; }

void read_design_list(const toml::node& node, const std::string& where, std::vector<Design>& out) {
  const auto* a = node.as_array();
  if (!a || a->empty()) throw InputError(where + "designs: give a list of { name, per_decade, sizes, runs } tables");
  out.clear();
  for (const auto& e : *a) {
    const auto* t = e.as_table();
    if (!t) throw InputError(where + "designs: each design is a table { name, per_decade, sizes, runs }");
    Design d;
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      if (key == "name") d.name = v.value_or<std::string>("");
      else if (key == "per_decade") d.per_decade = number(v, "designs." + key);
      else if (key == "sizes") d.sizes = number(v, "designs." + key);
      else if (key == "runs") d.runs = number(v, "designs." + key);
      else throw InputError(where + "designs: unknown key '" + key + "' (name, per_decade, sizes, runs)");
    }
    if (!is_plain_name(d.name)) throw InputError(where + "designs: each needs a name of letters, digits, '-' or '_'");
    out.push_back(d);
  }
}

void read_bench(const toml::table& t, const std::string& where, BenchSpec& b) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    try {
      if (key == "budgets") b.budgets = numbers_or_range(&v, key);
      else if (key == "sizes") b.sizes = numbers_or_range(&v, key);
      else if (key == "shift") b.shift = number(v, key);
      else if (key == "horizons") b.horizons = numbers_or_range(&v, key);
      else if (key == "replications") b.replications = number(v, key);
      else if (key == "designs") read_design_list(v, where, b.designs);
      else if (key == "main") b.main = v.value_or<std::string>("");
      else if (key == "truth_sizes") b.truth_sizes = number(v, key);
      else if (key == "truth_spread") b.truth_spread = number(v, key);
      else if (key == "truth_runs") b.truth_runs = number(v, key);
      else if (key == "bootstrap") b.bootstrap = number(v, key);
      else if (key == "truth_precision") b.truth_precision = number(v, key);
      else if (key == "truth_max_runs") b.truth_max_runs = number(v, key);
      else if (key == "refine") b.refine = number(v, key);
      else if (key == "design_methods") {
        b.design_methods.clear();
        const auto* a = v.as_array();
        if (!a) throw InputError("design_methods: give a list of method names, e.g. [\"approach2\", \"approach3\"]");
        for (const auto& e : *a) {
          const auto name = e.value<std::string>();
          if (!name) throw InputError("design_methods: each entry is a method's name");
          parse_method(*name);  // an unknown method is refused now
          b.design_methods.push_back(*name);
        }
      }
      else
        throw InputError("unknown key '" + key + "' (budgets, sizes, shift, horizons, replications, designs, main, "
                         "truth_sizes, truth_spread, truth_runs, truth_max_runs, truth_precision, refine, bootstrap, design_methods)");
    } catch (const InputError& e) {
      const std::string what = e.what();
      throw InputError(what.rfind(where, 0) == 0 ? what : where + what);
    }
  }
}

bool whole(double v, double lo, double hi) { return v >= lo && v <= hi && v == std::floor(v); }

// Every number of [benchmark] and the work they make, checked as a whole before anything runs.
void check_bench(World& w, const BenchmarkOptions& o) {
  BenchSpec& b = w.bench;
  const std::string where = at(w);
  if (b.budgets.size() != 2 || !(b.budgets[0] > 0) || !(b.budgets[1] > b.budgets[0]) || !std::isfinite(b.budgets[1]))
    throw InputError(where + "budgets: give the first and last small budget, [C_first, C_last], 0 < C_first < C_last");
  if (b.sizes.size() != 2 || !(b.sizes[0] > 0) || !(b.sizes[1] > b.sizes[0]) || !std::isfinite(b.sizes[1]))
    throw InputError(where + "sizes: give the size knob's range at the first budget, [low, high], 0 < low < high");
  if (!(b.shift >= 0 && b.shift <= 1)) throw InputError(where + fmt::format("shift = {:g}: give an exponent in [0, 1]", b.shift));
  if (b.horizons.empty()) throw InputError(where + "horizons: give at least one factor beyond the last small budget");
  for (double h : b.horizons)
    if (!(h > 1) || !std::isfinite(h) || h > 1e6)
      throw InputError(where + fmt::format("horizons: {:g} is not a factor in (1, 1e6]", h));
  if (o.replications > 0) b.replications = o.replications;
  if (!whole(b.replications, 1, 100000)) throw InputError(where + fmt::format("replications = {:g}: give a whole number from 1 to 100000", b.replications));
  if (o.bootstrap >= 0) b.bootstrap = o.bootstrap;
  if (!(b.bootstrap == 0 || whole(b.bootstrap, 20, 100000)))
    throw InputError(where + fmt::format("bootstrap = {:g}: give 0 (no intervals) or a whole number from 20", b.bootstrap));
  if (!whole(b.truth_sizes, 5, 10000)) throw InputError(where + fmt::format("truth_sizes = {:g}: give a whole number from 5", b.truth_sizes));
  if (!(b.truth_spread > 1) || !std::isfinite(b.truth_spread) || b.truth_spread > 1e6)
    throw InputError(where + fmt::format("truth_spread = {:g}: give a factor above 1", b.truth_spread));
  if (!whole(b.truth_runs, 1, 1e6)) throw InputError(where + fmt::format("truth_runs = {:g}: give a whole number from 1", b.truth_runs));
  if (b.designs.empty()) b.designs.push_back(Design{"standard", 3, 7, 1, {}, ""});
  std::set<std::string> names;
  for (auto& d : b.designs) {
    if (!names.insert(d.name).second) throw InputError(where + "designs: the name '" + d.name + "' is used twice");
    if (!(d.per_decade >= 1 && d.per_decade <= 100)) throw InputError(where + fmt::format("designs.{}: per_decade = {:g}: give 1 to 100", d.name, d.per_decade));
    if (!whole(d.sizes, 3, 1000)) throw InputError(where + fmt::format("designs.{}: sizes = {:g}: give a whole number from 3 to 1000", d.name, d.sizes));
    if (!whole(d.runs, 1, 1e6)) throw InputError(where + fmt::format("designs.{}: runs = {:g}: give a whole number from 1", d.name, d.runs));
    const double decades = std::log10(b.budgets[1] / b.budgets[0]);
    const int n = std::max(3, static_cast<int>(std::lround(d.per_decade * decades)) + 1);
    d.budgets.clear();
    for (int k = 0; k < n; ++k) d.budgets.push_back(b.budgets[0] * std::pow(b.budgets[1] / b.budgets[0], k / double(n - 1)));
  }
  if (b.main.empty()) b.main = b.designs.front().name;
  if (!names.count(b.main)) throw InputError(where + "main = '" + b.main + "' names no design");
  // Which knob each design turns, against the main design: the design-cost figure varies one at a time.
  const Design& m = b.designs[w.main_design()];
  for (auto& d : b.designs) {
    std::vector<std::string> changed;
    if (d.per_decade != m.per_decade) changed.push_back("per_decade");
    if (d.sizes != m.sizes) changed.push_back("sizes");
    if (d.runs != m.runs) changed.push_back("runs");
    d.knob = changed.empty() ? "main" : changed.size() == 1 ? changed.front() : "several";
  }
  if (!(b.truth_precision > 0 && b.truth_precision < 1))
    throw InputError(where + fmt::format("truth_precision = {:g}: give a fraction in (0, 1), e.g. 0.1 for +-10%", b.truth_precision));
  if (b.truth_max_runs == 0) b.truth_max_runs = 4 * b.truth_runs;
  if (!whole(b.truth_max_runs, b.truth_runs, 1e7))
    throw InputError(where + fmt::format("truth_max_runs = {:g}: give a whole number from truth_runs ({:g})", b.truth_max_runs, b.truth_runs));
  if (!whole(b.refine, 0, 4)) throw InputError(where + fmt::format("refine = {:g}: give 0 to 4 finer slices", b.refine));
  w.replications = w.measure->deterministic ? 1 : static_cast<int>(b.replications);  // a deterministic world repeats itself
  if (w.measure->deterministic) b.truth_runs = b.truth_max_runs = 1;
  double tasks = 0;
  for (const auto& d : b.designs) tasks += static_cast<double>(d.budgets.size()) * d.sizes * d.runs * w.replications;
  tasks += static_cast<double>(b.horizons.size()) * b.truth_sizes * b.truth_max_runs * (1 + kMaxExtensions + b.refine) +
           static_cast<double>(b.horizons.size()) * 2 * kMaxReach * b.truth_runs;
  check_limit(tasks, limits().max_tasks, w.path + " [benchmark]", "tasks (designs x replications, and the truth slices)",
              "--max-tasks");
}

}  // namespace

World load_world(const std::string& path, const BenchmarkOptions& o) {
  World w;
  w.path = path;
  w.name = std::filesystem::path(path).stem().string();
  if (!is_plain_name(w.name)) throw InputError(path + ": '" + w.name + "' cannot name a results folder; rename the file");
  const std::string text = read_file(path, kMaxSweepFileBytes, "world file");
  try {
    w.doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw InputError(path + ": malformed TOML: " + std::string(e.description()));
  }
  const auto* ex = w.doc["extrapolate"].as_table();
  const auto* bt = w.doc["benchmark"].as_table();
  if (!ex || !bt) throw InputError(path + ": a world file needs an [extrapolate] and a [benchmark] table (docs/extrapolation.md)");
  auto guarded = [&](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      const std::string what = e.what();
      throw InputError(what.rfind(path, 0) == 0 ? what : path + ": " + what);
    }
  };
  guarded([&] { read_spec(*ex, w.spec); });
  guarded([&] { read_bench(*bt, at(w), w.bench); });
  if (!o.profile.empty()) {
    if (!is_standard_profile(o.profile) && !w.doc["profile"][o.profile].as_table())
      throw InputError(path + ": unknown profile '" + o.profile + "' (the file has no [profile." + o.profile + "])");
    if (auto p = w.doc["profile"][o.profile]["extrapolate"].as_table()) guarded([&] { read_spec(*p, w.spec); });
    if (auto p = w.doc["profile"][o.profile]["benchmark"].as_table()) guarded([&] { read_bench(*p, at(w), w.bench); });
    if (w.doc["profile"][o.profile]["runs"])
      throw InputError(path + ": [profile." + o.profile + "] sets runs; the benchmark's designs set the runs per point");
  }
  for (auto [v, key] : {std::pair{&w.spec.size, "size"}, std::pair{&w.spec.data, "data"}, std::pair{&w.spec.loss, "loss"}})
    if (v->empty()) throw InputError(path + ": [extrapolate] needs '" + key + "'");
  const std::string measure_name = w.doc["measure"].value_or<std::string>("");
  w.measure = &world_registry().get(measure_name);
  for (const auto& knob : {w.spec.size, w.spec.data})
    if (!w.measure->param(knob)) throw InputError(path + ": [extrapolate] '" + knob + "' is not a parameter of " + measure_name);
  bool has_loss = false;
  for (const auto& metric : w.measure->metrics) has_loss = has_loss || metric.name == w.spec.loss;
  if (!has_loss) throw InputError(path + ": [extrapolate] loss: " + measure_name + " has no metric '" + w.spec.loss + "'");
  guarded([&] { w.model = std::make_unique<Model>(w.spec, fixed_numbers(w.doc)); });
  w.seed = static_cast<std::uint64_t>(w.doc["seed"].value_or<std::int64_t>(1));
  const ParamSpec* ps = w.measure->param(w.spec.size);
  w.size_integer = ps->type == ParamType::Int || ps->type == ParamType::Count;
  check_bench(w, o);
  return w;
}

// The doc of one sweep of the world: its seed and runs per point.
toml::table with_seed(const World& w, std::uint64_t seed, double runs) {
  toml::table doc = w.doc;
  doc.erase("benchmark");
  if (auto p = doc["profile"].as_table())
    for (auto& [name, node] : *p)
      if (auto t = node.as_table()) t->erase("benchmark");
  doc.insert_or_assign("seed", static_cast<std::int64_t>(seed));
  doc.insert_or_assign("runs", static_cast<std::int64_t>(runs));
  return doc;
}

std::vector<Planned> design_plan(const World& w, const Design& d) {
  std::vector<Planned> plan;
  const double n_lo = w.model->N(w.bench.sizes[0]), n_hi = w.model->N(w.bench.sizes[1]);
  for (double C : d.budgets) {
    const double move = std::pow(C / d.budgets.front(), w.bench.shift);
    for (int k = 0; k < static_cast<int>(d.sizes); ++k) {
      const double N = n_lo * move * std::pow(n_hi / n_lo, k / (d.sizes - 1));
      plan.push_back(plan_at(w, w.model->size_for_N(N), C));
    }
  }
  return plan;
}

Planned plan_at(const World& w, double size, double C) {
  const double s = w.size_integer ? std::max(1.0, std::round(size)) : size;
  return {s, w.model->data_for(s, C), C};
}


}  // namespace scalinglab::extrapolate
