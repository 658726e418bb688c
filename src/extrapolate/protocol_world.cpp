// Planning and running the IsoFLOP sweeps of the scaling-law protocol on a world.
#include "scalinglab/extrapolate/protocol_world.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/results/aggregate.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/run/runner.hpp"

namespace scalinglab::extrapolate::protocol {

using namespace fit;

namespace {



// The n of "logspace(a, b, n)" or "linspace(a, b, n)" (0 for anything else), so that a huge n is
// refused before expand_values makes the values.
double spaced_count(const std::string& spec) {
  std::string s = spec;
  std::erase_if(s, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  if ((s.rfind("logspace(", 0) != 0 && s.rfind("linspace(", 0) != 0) || s.back() != ')') return 0;
  const auto comma = s.rfind(',');
  if (comma == std::string::npos) return 0;
  const auto n = parse_number(s.substr(comma + 1, s.size() - comma - 2));
  return n && *n > 0 ? *n : 0;  // a bad n is expand_values' to report
}

}  // namespace

double number(const toml::node& n, const std::string& key) {
  if (auto v = n.value<double>()) return *v;
  throw InputError("[extrapolate] " + key + ": expected a number");
}

std::vector<double> numbers_or_range(const toml::node* n, const std::string& key) {
  std::vector<double> out;
  if (!n) throw InputError("[extrapolate] missing '" + key + "'");
  if (auto s = n->value<std::string>()) {
    check_limit(spaced_count(*s), limits().max_points, "[extrapolate] " + key + " = \"" + *s + "\"", "values",
                "--max-points");
    ParamSpec real;
    real.name = key;
    real.type = ParamType::Real;
    for (const auto& t : expand_values(*s, real)) {
      const auto v = parse_number(t);
      if (!v || !std::isfinite(*v)) throw InputError("[extrapolate] " + key + ": '" + t + "' is not a finite number");
      out.push_back(*v);
    }
  } else if (auto a = n->as_array()) {
    for (const auto& e : *a) out.push_back(number(e, key));
  } else {
    out.push_back(number(*n, key));
  }
  return out;
}

void read_spec(const toml::table& t, Spec& s) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (key == "size") s.size = v.value_or<std::string>("");
    else if (key == "data") s.data = v.value_or<std::string>("");
    else if (key == "N") s.N = v.value_or<std::string>("");
    else if (key == "D") s.D = v.value_or<std::string>("");
    else if (key == "loss") s.loss = v.value_or<std::string>("");
    else if (key == "budgets") s.budgets = numbers_or_range(&v, key);
    else if (key == "sizes") s.sizes = numbers_or_range(&v, key);
    else if (key == "target") s.target = number(v, key);
    else if (key == "target_sizes") s.target_sizes = number(v, key);
    else if (key == "target_spread") s.target_spread = number(v, key);
    else if (key == "curve_loss") s.curve_loss = v.value_or<std::string>("");
    else if (key == "curve_data") s.curve_data = v.value_or<std::string>("");
    else if (key == "curve_compute") s.curve_compute = v.value_or<std::string>("");
    else throw InputError("[extrapolate] unknown key '" + key + "' (keys: size, data, N, D, loss, budgets, sizes, target, "
                          "target_sizes, target_spread, curve_loss, curve_data, curve_compute)");
  }
}



Model::Model(const Spec& s, const std::map<std::string, double>& fixed)
    : spec_(s), fixed_(fixed), N_(s.N.empty() ? s.size : s.N), D_(s.D.empty() ? s.data : s.D) {
  // D must be proportional to the data knob, so that the knob for a given D is D / D(knob = 1).
  const double d1 = D(1.0, 1.0), d2 = D(1.0, 2.0);
  if (!(d1 > 0) || std::abs(d2 / d1 - 2) > 1e-9)
    throw InputError("[extrapolate] D = '" + D_.text() + "' must be proportional to the data knob '" + s.data + "'");
}

double Model::size_for_N(double N) const {
  double lo = 1e-6, hi = 1e12;
  for (int it = 0; it < 200; ++it) {
    const double mid = std::sqrt(lo * hi);
    (this->N(mid) < N ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

double Model::eval(const Expression& e, double size, double data) const {
  try {
    return e.eval([&](const std::string& name) -> std::optional<double> {
      if (name == spec_.size) return size;
      if (name == spec_.data) return data;
      if (auto it = fixed_.find(name); it != fixed_.end()) return it->second;
      return std::nullopt;
    });
  } catch (const InputError&) {
    throw;
  } catch (const std::exception&) {  // the math library's own error (gamma at a pole): NaN, refused by callers
    return std::numeric_limits<double>::quiet_NaN();
  }
}

static std::string value_text(double v, bool integer) {
  return integer ? fmt::format("{}", std::llround(v)) : fmt::format("{:.10g}", v);
}

// The sweep text: the file without [extrapolate] (and profiles' extrapolate tables), plus a linked
// grid axis over (size, data).
static std::string sweep_text(toml::table doc, const Spec& spec, const std::vector<Planned>& runs, bool size_int, bool data_int) {
  doc.erase("extrapolate");
  doc.erase("title");
  if (auto p = doc["profile"].as_table())
    for (auto& [name, node] : *p)
      if (auto t = node.as_table()) t->erase("extrapolate");
  std::ostringstream out;
  out << doc << "\n\n[grid]\n" << spec.size << " = [\n";
  for (const auto& r : runs)
    out << fmt::format("  {{ {} = {}, {} = {} }},\n", spec.size, value_text(r.size, size_int), spec.data,
                       value_text(r.data, data_int));
  out << "]\n";
  return out.str();
}





Part plan_part(const toml::table& doc, const Spec& spec, std::vector<Planned> plan, const std::string& name,
               const PartOptions& o, const Measure& m) {
  const ParamSpec* ps = m.param(spec.size);
  const ParamSpec* pd = m.param(spec.data);
  const bool size_int = ps->type == ParamType::Int || ps->type == ParamType::Count;
  const bool data_int = pd->type == ParamType::Int || pd->type == ParamType::Count;
  Part part;
  std::set<std::pair<double, double>> seen;
  for (auto p : plan) {
    if (size_int) p.size = std::round(p.size);
    if (data_int) p.data = std::round(p.data);
    if (!(p.size >= ps->min && p.size <= ps->max && p.data >= pd->min && p.data <= pd->max)) continue;  // NaN too
    if (!seen.insert({p.size, p.data}).second) continue;
    part.kept.push_back(p);
  }
  if (part.kept.empty()) throw InputError("[extrapolate] no run of the " + name + " sweep lies within the knobs' ranges");
  part.sweep = parse_sweep(sweep_text(doc, spec, part.kept, size_int, data_int), name + ".toml", o.profile, {},
                           world_registry());
  return part;
}

// Each run's learning curve: its checkpoints' compute (from the data knob's series, or the compute
// series itself) and loss, in run order; a checkpoint without a finite, positive loss is left out.
fit::Curves curves_of(const std::vector<TaskResult>& records, const Spec& spec, const Model& model) {
  fit::Curves c;
  int id = 0;
  for (const auto& r : records) {
    const std::vector<double>* loss = nullptr;
    const std::vector<double>* x = nullptr;
    const std::string& xname = spec.curve_compute.empty() ? spec.curve_data : spec.curve_compute;
    for (const auto& [name, values] : r.record.series) {
      if (name == spec.curve_loss) loss = &values;
      if (name == xname) x = &values;
    }
    const auto size = r.params.find(spec.size);
    if (!loss || !x || loss->size() != x->size() || size == r.params.end() || !size->is_number()) continue;
    const double s = size->get<double>(), N = model.N(s);
    for (std::size_t i = 0; i < loss->size(); ++i) {
      const double C = spec.curve_compute.empty() ? 6 * N * model.D(s, (*x)[i]) : (*x)[i];
      if (!(C > 0) || !std::isfinite(C) || !((*loss)[i] > 0) || !std::isfinite((*loss)[i])) continue;
      c.N.push_back(N), c.C.push_back(C), c.loss.push_back((*loss)[i]), c.run.push_back(id);
    }
    ++id;
  }
  return c;
}

Sweeped run_part(const Part& part, const Spec& spec, const Model& model, const std::string& dir,
                 const PartOptions& o) {
  RunOptions ro;
  ro.out_dir = dir;
  ro.threads = o.threads;
  ro.resume = o.resume;
  ro.quiet = o.quiet;
  run_sweep(part.sweep, ro);
  // The runs aggregated from results.jsonl rather than read back from summary.csv, whose header may
  // name a column twice (factor.train has a parameter and a metric called epochs).
  const std::vector<TaskResult> records = read_results(dir + "/results.jsonl");
  const Table t = aggregate(expand_grid(part.sweep, world_registry()), records);
  Sweeped out;
  std::vector<double> data;
  const std::size_t li = t.metric_index(spec.loss);
  for (const auto& row : t.rows) {
    // A point whose loss is not finite (a diverged run) is left out: a lab would drop it too.
    if (!std::isfinite(row.mean[li]) || !(row.mean[li] > 0)) continue;
    out.size.push_back(row.params.entry(spec.size).number);
    data.push_back(row.params.entry(spec.data).number);
    out.loss.push_back(row.mean[li]);
    out.sem.push_back(std::isfinite(row.sem[li]) ? row.sem[li] : 0.0);
  }
  if (out.loss.empty()) throw InputError(dir + ": no point has a finite, positive loss '" + spec.loss + "'");
  for (std::size_t i = 0; i < out.size.size(); ++i) {
    out.N.push_back(model.N(out.size[i]));
    out.D.push_back(model.D(out.size[i], data[i]));
    out.C.push_back(6 * out.N.back() * out.D.back());
    // The planned run this row is (the nearest in log size and log data).
    double best = std::numeric_limits<double>::infinity();
    double budget = out.C.back();
    for (const auto& p : part.kept) {
      const double d = std::fabs(std::log(p.size / out.size[i])) + std::fabs(std::log(p.data / data[i]));
      if (d < best) best = d, budget = p.budget;
    }
    out.budget.push_back(budget);
  }
  if (spec.has_curves()) out.curves = curves_of(records, spec, model);
  return out;
}

// Every number of [extrapolate] and the amount of work they make, checked as a whole before
// anything runs or is written, each refusal one sentence: a typo such as target_sizes = 1e9 once
// filled memory after the small sweeps had run, and 3e9 (past an int) planned no run and exited 0.
void check_spec(const Spec& s, const std::string& path) {
  const std::string at = path + ": [extrapolate] ";
  auto positive = [&](const std::vector<double>& values, const char* key) {
    for (double v : values)
      if (!(v > 0) || !std::isfinite(v))
        throw InputError(at + key + fmt::format(": {:g} is not a positive, finite number", v));
  };
  positive(s.budgets, "budgets");
  positive(s.sizes, "sizes");
  if (!(s.target > 0) || !std::isfinite(s.target))
    throw InputError(at + fmt::format("target = {:g}: the budget to predict must be positive and finite", s.target));
  if (!(s.target_sizes >= 1) || !std::isfinite(s.target_sizes) || s.target_sizes != std::floor(s.target_sizes))
    throw InputError(at + fmt::format("target_sizes = {:g}: give a whole number of sizes, 1 or more", s.target_sizes));
  if (!(s.target_spread > 1) || !std::isfinite(s.target_spread))
    throw InputError(at + fmt::format("target_spread = {:g}: give a finite factor above 1", s.target_spread));
  const double runs = static_cast<double>(s.budgets.size()) * static_cast<double>(s.sizes.size()) + s.target_sizes + 2;
  check_limit(runs, limits().max_points, path + " [extrapolate]",
              "grid points (budgets x sizes, plus target_sizes + 2 at the target)", "--max-points");
  if (!(runs < 1e15)) throw InputError(at + fmt::format("{:g} grid points are too many to plan", runs));
}

std::map<std::string, double> fixed_numbers(const toml::table& doc) {
  std::map<std::string, double> out;
  if (auto p = doc["params"].as_table())
    for (const auto& [k, v] : *p)
      if (auto x = v.value<double>()) out[std::string(k.str())] = *x;
  return out;
}

}  // namespace scalinglab::extrapolate::protocol
