// Grid expansion: logspace/linspace values, and the task-level points of a sweep (one cartesian
// product per part in a multi-part sweep).
#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <unordered_set>

#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

std::vector<std::string> expand_values(const std::string& spec, const ParamSpec& param) {
  std::string s = spec;
  std::erase_if(s, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  const bool log = s.rfind("logspace(", 0) == 0, lin = s.rfind("linspace(", 0) == 0;
  if (!log && !lin) return {spec};
  if (param.type == ParamType::Choice || param.type == ParamType::Bool || param.type == ParamType::Text)
    throw InputError("'" + spec + "': " + param.name + " is not numeric");
  if (s.back() != ')') throw InputError("'" + spec + "': expected " + s.substr(0, 8) + "(a, b, n)");
  std::vector<std::string> args;
  std::stringstream in(s.substr(9, s.size() - 10));
  for (std::string a; std::getline(in, a, ',');) args.push_back(a);
  std::vector<std::optional<double>> v;
  for (const auto& a : args) v.push_back(parse_number(a));
  if (args.size() != 3 || !v[0] || !v[1] || !v[2] || !std::isfinite(*v[0]) || !std::isfinite(*v[1]))
    throw InputError("'" + spec + "': expected " + s.substr(0, 8) + "(a, b, n) with finite numbers a, b");
  const double a = *v[0], b = *v[1], n = *v[2];
  if (n < 1 || n != std::floor(n) || n > 1e6) throw InputError("'" + spec + "': n must be a positive integer");
  // One axis cannot have more values than the whole grid may have points: refused before any is made.
  check_limit(n, limits().max_points, "'" + spec + "'", "values", "--max-points");
  if (log && (a <= 0 || b <= 0)) throw InputError("'" + spec + "': logspace needs a > 0 and b > 0");
  const bool integral = param.type == ParamType::Int || param.type == ParamType::Count;
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;  // rounding duplicates, found in constant time
  for (int i = 0; i < static_cast<int>(n); ++i) {
    const double f = n > 1 ? i / (n - 1) : 0.0;
    double x = i == n - 1 && n > 1 ? b : log ? a * std::pow(b / a, f) : a + (b - a) * f;
    if (integral) x = std::round(x);
    std::string t = canonical_text(param, x);
    if (seen.insert(t).second) out.push_back(std::move(t));
  }
  return out;
}

const ParamSpec& part_param() {
  static const ParamSpec spec = choice_param("part", "", {}, "the part of a multi-measure sweep");
  return spec;
}

std::string Sweep::measures_text() const {
  if (parts.empty()) return measure;
  std::string out;
  std::vector<std::string> names;
  for (const auto& p : parts)
    if (std::find(names.begin(), names.end(), p.measure) == names.end()) {
      names.push_back(p.measure);
      out += (out.empty() ? "" : ", ") + p.measure;
    }
  return out;
}

namespace {

// The points of one measure over `axes` (a cartesian product, the first axis slowest), with
// `fixed` merged first and `own` (a part's values) last. Axes the measure does not declare are
// skipped by the caller; linked values it does not declare are dropped here.
void expand_axes(const Sweep& sweep, const Measure& measure, const std::vector<const GridAxis*>& axes,
                 const std::map<std::string, std::string>& own, const std::string& part,
                 std::vector<GridPoint>& points) {
  std::size_t total = 1;
  for (const auto* axis : axes) total *= axis->values.size();
  std::map<std::string, std::size_t> seen;
  std::vector<std::size_t> at(axes.size(), 0);  // odometer, last axis fastest
  for (std::size_t i = 0; i < total; ++i) {
    std::map<std::string, std::string> given;
    for (const auto& [name, value] : sweep.fixed)
      if (part.empty() || measure.param(name)) given[name] = value;
    given["runs"] = std::to_string(sweep.runs);
    given["seed"] = std::to_string(sweep.seed);
    std::string label;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const GridAxis& axis = *axes[a];
      if (axis.linked.empty()) {
        given[axis.name] = axis.values[at[a]];
      } else {
        for (const auto& [name, value] : axis.linked[at[a]])
          if (part.empty() || measure.param(name)) given[name] = value;
      }
      label += " " + axis.name + "=" + axis.values[at[a]];
    }
    for (const auto& [name, value] : own) given[name] = value;
    const std::string where = part.empty() ? "" : " part " + part;
    const std::string context =
        sweep.path + (label.empty() ? ":" + where + (where.empty() ? " [params]" : "") : ":" + where + " grid point" + label);
    Params params = resolve_params(measure.params, given, context);
    // The measure is part of a task's identity: resuming after the sweep's measure changed must
    // not take the other measure's records for this one's.
    std::string key = (part.empty() ? "" : "part=" + part + " ") + measure.name + " " + params.canonical();
    if (auto [it, fresh] = seen.emplace(key, i); !fresh)
      throw InputError(context + ": same parameters as grid point #" + std::to_string(it->second + 1) + " (" +
                       key + "); remove the duplicate value");
    points.push_back(GridPoint{points.size(), std::move(params), std::move(key), &measure, part});
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++at[a] < axes[a]->values.size()) break;
      at[a] = 0;
    }
  }
}

}  // namespace

double grid_size(const Sweep& sweep, const Registry& registry) {
  auto product = [&](const Measure* m, const std::map<std::string, std::string>& own) {
    double n = 1;
    for (const auto& a : sweep.grid)
      if (!m || (m->param(a.name) && !own.count(a.name))) n *= static_cast<double>(a.values.size());
    return n;
  };
  if (sweep.parts.empty()) return product(nullptr, {});
  double total = 0;
  for (const auto& part : sweep.parts) total += product(&registry.get(part.measure), part.fixed);
  return total;
}

std::vector<GridPoint> expand_grid(const Sweep& sweep, const Measure& measure) {
  std::vector<const GridAxis*> axes;
  for (const auto& a : sweep.grid) axes.push_back(&a);
  std::vector<GridPoint> points;
  expand_axes(sweep, measure, axes, {}, "", points);
  return points;
}

std::vector<GridPoint> expand_grid(const Sweep& sweep, const Registry& registry) {
  if (sweep.parts.empty()) return expand_grid(sweep, registry.get(sweep.measure));
  std::vector<GridPoint> points;
  for (const auto& part : sweep.parts) {
    const Measure& m = registry.get(part.measure);
    // A part runs over the axes its measure declares and that it does not fix itself.
    std::vector<const GridAxis*> axes;
    for (const auto& a : sweep.grid)
      if (m.param(a.name) && !part.fixed.count(a.name)) axes.push_back(&a);
    expand_axes(sweep, m, axes, part.fixed, part.name, points);
  }
  return points;
}

}  // namespace scalinglab
