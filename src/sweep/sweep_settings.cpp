// The sweep's settings: fixed parameters, grid axes (linked ones included) and [[part]] tables. A
// later setting of a parameter replaces an earlier one, fixed or on an axis.
#include "sweep_reader.hpp"

#include <algorithm>
#include <cctype>

#include "scalinglab/core/error.hpp"

namespace scalinglab {

void SweepReader::params(const toml::node* n, const std::string& key, Sweep& s, bool everywhere) const {
  for (const auto& [k, v] : ordered(table(n, key))) {
    not_part(v, k, key);
    param(v, k, key);
    s.fixed[k] = text(v, key + "." + k);
    unset_axis(s, k);
    if (everywhere) unset_in_parts(s, k);
  }
}

void SweepReader::unset_axis(Sweep& s, const std::string& name) {
  std::erase_if(s.grid, [&](const GridAxis& a) { return a.name == name; });
  for (auto& a : s.grid)
    for (auto& set : a.linked) set.erase(name);
}

void SweepReader::not_part(const toml::node* n, const std::string& name, const std::string& key) const {
  if (name == "part") fail(n, key + ": 'part' names the [[part]] tables; it cannot be set");
}

void SweepReader::unset_in_parts(Sweep& s, const std::string& name) {
  for (auto& part : s.parts) part.fixed.erase(name);
}

void SweepReader::grid(const toml::node* n, const std::string& key, Sweep& s, bool everywhere) const {
  for (const auto& [k, v] : ordered(table(n, key))) {
    if (everywhere) unset_in_parts(s, k);
    not_part(v, k, key);
    const std::string axis_key = key + "." + k;
    GridAxis axis{k, {}, {}};
    const ParamSpec& p = param(v, k, key);
    auto add = [&](const toml::node* e) {
      if (auto t = e->as_table()) return add_linked(*t, e, axis_key, axis);
      if (!axis.linked.empty()) fail(e, axis_key + ": mixes tables and plain values");
      std::vector<std::string> values;
      try {
        values = expand_values(text(e, axis_key), p);
      } catch (const InputError& err) {
        fail(e, axis_key + ": " + err.what());
      }
      axis.values.insert(axis.values.end(), values.begin(), values.end());
    };
    if (auto arr = v->as_array()) for (const auto& e : *arr) add(&e);
    else add(v);
    if (axis.values.empty()) fail(v, axis_key + ": empty grid axis");
    s.fixed.erase(k);
    for (const auto& set : axis.linked)
      for (const auto& [name, value] : set) s.fixed.erase(name);
    auto it = std::find_if(s.grid.begin(), s.grid.end(), [&, name = k](const GridAxis& a) { return a.name == name; });
    if (it != s.grid.end()) *it = std::move(axis);
    else s.grid.push_back(std::move(axis));
  }
}

void SweepReader::add_linked(const toml::table& t, const toml::node* e, const std::string& key, GridAxis& axis) const {
  if (axis.linked.size() != axis.values.size()) fail(e, key + ": mixes tables and plain values");
  std::map<std::string, std::string> set;
  for (const auto& [name, v] : ordered(t)) {
    param(v, name, key);
    set[name] = text(v, key + "." + name);
  }
  if (!set.count(axis.name)) fail(e, key + ": each table of a linked axis sets " + axis.name);
  axis.values.push_back(set[axis.name]);
  axis.linked.push_back(std::move(set));
}

void SweepReader::parts(const toml::node* n, const Registry& registry, Sweep& s) {
  const auto* arr = n->as_array();
  if (!arr || arr->empty() || !arr->is_array_of_tables()) fail(n, "part: use [[part]] tables, one per measure");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const toml::node* pn = arr->get(i);
    const std::string key = "[[part]] #" + std::to_string(i + 1);
    const auto& t = table(pn, key);
    allow_keys(t, {"name", "label", "measure", "params", "theory"}, key);
    if (!t.contains("name") || !t.contains("measure")) fail(pn, key + ": needs name and measure");
    SweepPart part;
    part.name = string(t.get("name"), key + " name");
    const bool word = !part.name.empty() && std::all_of(part.name.begin(), part.name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+';
    });
    if (!word) fail(t.get("name"), key + " name: use letters, digits and _ - . + (it labels curves and rows)");
    for (const auto& other : s.parts)
      if (other.name == part.name) fail(t.get("name"), key + " name: '" + part.name + "' is used twice");
    part.label = t.contains("label") ? string(t.get("label"), key + " label") : part.name;
    part.measure = string(t.get("measure"), key + " measure");
    const Measure* pm = nullptr;
    try {
      pm = &registry.get(part.measure);
    } catch (const InputError& e) {
      fail(t.get("measure"), key + " measure: " + e.what());
    }
    part.theory = t.contains("theory") ? boolean(t.get("theory"), key + " theory") : pm->deterministic;
    for (const auto& mm : pm->metrics) part.metrics.push_back(mm.name);
    if (auto v = t.get("params")) {
      const Measure* shared = m_;
      m_ = pm;
      for (const auto& [k, pv] : ordered(table(v, key + " params"))) {
        param(pv, k, key + " params");
        part.fixed[k] = text(pv, key + " params." + k);
      }
      m_ = shared;
    }
    s.parts.push_back(std::move(part));
    merge_into_union(*pm);
  }
  ParamSpec part_spec = part_param();
  for (const auto& p : s.parts) part_spec.choices.push_back(p.name);
  union_.params.insert(union_.params.begin(), part_spec);
  union_.name = "the parts (" + s.measures_text() + ")";
  m_ = &union_;
}

void SweepReader::merge_into_union(const Measure& pm) {
  for (const auto& p : pm.params)
    if (!union_.param(p.name)) union_.params.push_back(p);
  for (const auto& mm : pm.metrics) {
    const bool known = std::any_of(union_.metrics.begin(), union_.metrics.end(),
                                   [&](const MetricSpec& u) { return u.name == mm.name; });
    if (!known) union_.metrics.push_back(mm);
  }
}

}  // namespace scalinglab
