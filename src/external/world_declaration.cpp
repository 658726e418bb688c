// A loaded world's declaration read into a Measure. Every field is checked for its type here, with
// a message naming the world's file and the field; what a declaration means (names, ranges,
// defaults) is checked by the registry as for the built-in worlds.
#include "scalinglab/external/world_declaration.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"

namespace scalinglab::external {

namespace {

using json = nlohmann::json;

void only_keys(const json& j, std::initializer_list<const char*> keys, const std::string& where) {
  for (const auto& [k, v] : j.items())
    if (std::none_of(keys.begin(), keys.end(), [&](const char* x) { return k == x; })) {
      std::string known;
      for (const char* x : keys) known += (known.empty() ? "" : ", ") + std::string(x);
      throw InputError(where + ": unknown field " + json(k).dump() + " (known: " + known + ")");
    }
}

std::string text_field(const json& j, const char* key, const std::string& where, bool required = false) {
  if (!j.contains(key) || j[key].is_null()) {
    if (required) throw InputError(where + ": the field '" + std::string(key) + "' is missing");
    return "";
  }
  if (!j[key].is_string()) throw InputError(where + ": '" + std::string(key) + "' must be a string");
  const std::string s = j[key].get<std::string>();
  if (s.size() > 4000) throw InputError(where + ": '" + std::string(key) + "' is longer than 4000 characters");
  return s;
}

bool flag_field(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return false;
  if (!j[key].is_boolean()) throw InputError(where + ": '" + std::string(key) + "' must be true or false");
  return j[key].get<bool>();
}

// A bound: a number, "inf"/"-inf" (JSON has no infinity), or absent.
double bound_field(const json& j, const char* key, double absent, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return absent;
  const json& v = j[key];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    if (const auto x = parse_number(v.get<std::string>()); x && !std::isnan(*x)) return *x;
  }
  throw InputError(where + ": '" + std::string(key) + "' must be a number (or \"inf\", \"-inf\")");
}

ParamType param_type(const std::string& t, const std::string& where) {
  if (t == "int") return ParamType::Int;
  if (t == "real") return ParamType::Real;
  if (t == "count") return ParamType::Count;
  if (t == "choice") return ParamType::Choice;
  if (t == "bool") return ParamType::Bool;
  throw InputError(where + ": type " + json(t).dump() + " is not one of int, real, count, choice, bool");
}

ParamSpec read_param(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where + ": a parameter must be an object {name, type, default, doc, ...}");
  const std::string name = text_field(j, "name", where, true);
  const std::string at = where + ", parameter " + json(name).dump();
  only_keys(j, {"name", "type", "default", "doc", "min", "max", "choices", "same_world", "expression"}, at);
  ParamSpec p;
  p.name = name;
  p.type = param_type(text_field(j, "type", at, true), at);
  if (!j.contains("default") || j["default"].is_null()) throw InputError(at + ": the field 'default' is missing");
  const json& d = j["default"];
  if (d.is_string()) p.default_value = d.get<std::string>();
  else if (d.is_boolean()) p.default_value = d.get<bool>() ? "true" : "false";
  else if (d.is_number_integer() || d.is_number_unsigned()) p.default_value = d.dump();
  else if (d.is_number()) p.default_value = format_number(d.get<double>());
  else throw InputError(at + ": 'default' must be a number, a string or a boolean");
  p.doc = text_field(j, "doc", at);
  const bool integral = p.type == ParamType::Int || p.type == ParamType::Count;
  p.min = bound_field(j, "min", integral ? 1 : -INFINITY, at);
  p.max = bound_field(j, "max", INFINITY, at);
  if (p.type == ParamType::Count && std::isfinite(p.max))
    throw InputError(at + ": a count has no maximum (it may be inf); use type int for a bounded integer");
  if (j.contains("choices") && !j["choices"].is_null()) {
    if (!j["choices"].is_array()) throw InputError(at + ": 'choices' must be a list of words");
    for (const auto& c : j["choices"]) {
      if (!c.is_string()) throw InputError(at + ": 'choices' must be a list of words");
      p.choices.push_back(c.get<std::string>());
    }
    if (p.type != ParamType::Choice && !p.choices.empty()) throw InputError(at + ": only a choice has 'choices'");
  }
  p.same_world = flag_field(j, "same_world", at);
  p.expression = flag_field(j, "expression", at);
  if (p.expression && p.type != ParamType::Int && p.type != ParamType::Real && p.type != ParamType::Count)
    throw InputError(at + ": only a numeric parameter may be a formula ('expression')");
  return p;
}

// A formula of the parameters, evaluated per task (an estimate of work or memory); parsed now so
// that a typo is refused at load time, and its variables checked against the declaration.
std::function<double(const Params&)> estimate(const json& j, const char* key, const std::vector<ParamSpec>& params,
                                              const std::string& where) {
  const std::string text = text_field(j, key, where);
  if (text.empty()) return nullptr;
  Expression e = [&] {
    try {
      return Expression(text);
    } catch (const InputError& err) {
      throw InputError(where + ": '" + std::string(key) + "' " + json(text).dump() + ": " + err.what());
    }
  }();
  for (const auto& v : e.variables())
    if (v != "runs" && std::none_of(params.begin(), params.end(), [&](const ParamSpec& p) { return p.name == v; }))
      throw InputError(where + ": '" + std::string(key) + "' reads " + json(v).dump() + ", not a parameter of the measure");
  return [e](const Params& prm) {
    const double x = e.eval([&](const std::string& n) -> std::optional<double> {
      if (!prm.has(n)) return std::nullopt;
      return prm.entry(n).number;
    });
    return std::isnan(x) ? INFINITY : x;  // an estimate that cannot be made is refused by the limit, not ignored
  };
}

}  // namespace

Measure measure_from_declaration(const json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source + ": a measure's declaration must be a JSON object");
  const std::string name = text_field(j, "name", source, true);
  const std::string where = source + ": measure " + json(name).dump();
  only_keys(j, {"name", "summary", "details", "deterministic", "params", "metrics", "work", "memory"}, where);
  Measure m;
  m.name = name;
  m.summary = text_field(j, "summary", where);
  m.details = text_field(j, "details", where);
  m.deterministic = flag_field(j, "deterministic", where);
  if (j.contains("params") && !j["params"].is_null()) {
    if (!j["params"].is_array()) throw InputError(where + ": 'params' must be a list");
    if (j["params"].size() > 256) throw InputError(where + ": more than 256 parameters");
    for (const auto& p : j["params"]) m.params.push_back(read_param(p, where));
  }
  if (!j.contains("metrics") || !j["metrics"].is_array()) throw InputError(where + ": 'metrics' must be a list");
  if (j["metrics"].size() > 256) throw InputError(where + ": more than 256 metrics");
  for (const auto& x : j["metrics"]) {
    if (!x.is_object()) throw InputError(where + ": a metric must be an object {name, doc, series}");
    const std::string mn = text_field(x, "name", where, true);
    const std::string at = where + ", metric " + json(mn).dump();
    only_keys(x, {"name", "doc", "series"}, at);
    m.metrics.push_back({mn, text_field(x, "doc", at), flag_field(x, "series", at)});
  }
  m.work = estimate(j, "work", m.params, where);
  m.memory = estimate(j, "memory", m.params, where);
  return m;
}

std::vector<std::string> register_loaded(std::vector<Measure> measures, const std::string& source) {
  for (const auto& m : measures)
    for (const Measure* x : world_registry().all())
      if (x->name == m.name) throw InputError(source + ": measure " + m.name + " is already registered");
  std::vector<std::string> names;
  for (auto& m : measures) {
    names.push_back(m.name);
    add_loaded_measure(std::move(m));
  }
  return names;
}

void check_record(const Measure& m, const Record& r) {
  for (const auto& x : m.metrics) {
    const bool set = x.series ? std::any_of(r.series.begin(), r.series.end(), [&](const auto& s) { return s.first == x.name; })
                              : std::any_of(r.scalars.begin(), r.scalars.end(), [&](const auto& s) { return s.first == x.name; });
    if (!set) throw std::runtime_error(m.name + " did not set its " + (x.series ? "series " : "") + "metric '" + x.name + "'");
  }
  auto declared = [&](const std::string& n, bool series) {
    return std::any_of(m.metrics.begin(), m.metrics.end(), [&](const MetricSpec& x) { return x.name == n && x.series == series; });
  };
  for (const auto& [n, v] : r.scalars)
    if (!declared(n, false)) throw std::runtime_error(m.name + " set '" + n + "', not a scalar metric of its declaration");
  for (const auto& [n, v] : r.series)
    if (!declared(n, true)) throw std::runtime_error(m.name + " set '" + n + "', not a series metric of its declaration");
}

}  // namespace scalinglab::external
