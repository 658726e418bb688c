// Reading a sweep file's values: scalars, names checked against the measure's declaration,
// where-selections and formulas; every error names the file, the line/column when known, and the key.
#include "sweep_reader.hpp"

#include <algorithm>
#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/core/file_io.hpp"

namespace scalinglab {

std::string SweepReader::join(const Keys& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

void SweepReader::fail(const toml::node* n, const std::string& what) const {
  std::string where = file_;
  if (n && n->source().begin.line > 0) {
    const auto& at = n->source().begin;
    where.append(":").append(std::to_string(at.line)).append(":").append(std::to_string(at.column));
  }
  throw InputError(where + ": " + what);
}

std::vector<std::pair<std::string, const toml::node*>> SweepReader::ordered(const toml::table& t) {
  std::vector<std::pair<std::string, const toml::node*>> out;
  for (const auto& [k, v] : t) out.emplace_back(std::string(k.str()), &v);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const auto &pa = a.second->source().begin, &pb = b.second->source().begin;
    return std::pair(pa.line, pa.column) < std::pair(pb.line, pb.column);
  });
  return out;
}

const toml::table& SweepReader::table(const toml::node* n, const std::string& key) const {
  if (!n->is_table()) fail(n, key + ": expected a table");
  return *n->as_table();
}

void SweepReader::allow_keys(const toml::table& t, const Keys& allowed, const std::string& section) const {
  for (const auto& [k, v] : ordered(t))
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      fail(v, section + ": unknown key '" + k + "' (allowed: " + join(allowed) + ")");
}

std::string SweepReader::text(const toml::node* n, const std::string& key) const {
  if (auto v = n->as_integer()) return std::to_string(v->get());
  if (auto v = n->as_floating_point()) return format_number(v->get());
  if (auto v = n->as_string()) return v->get();
  if (auto v = n->as_boolean()) return v->get() ? "true" : "false";
  fail(n, key + ": expected a number, a string or a boolean");
}

std::string SweepReader::string(const toml::node* n, const std::string& key) const {
  if (!n->is_string()) fail(n, key + ": expected a string");
  return n->as_string()->get();
}

double SweepReader::number(const toml::node* n, const std::string& key) const {
  if (auto v = n->as_integer()) return static_cast<double>(v->get());
  if (auto v = n->as_floating_point()) return v->get();
  if (auto v = n->as_string(); v && parse_number(v->get())) return *parse_number(v->get());
  fail(n, key + ": expected a number");
}

int64_t SweepReader::integer(const toml::node* n, const std::string& key, int64_t lo) const {
  const double v = number(n, key);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > 9.2e18)
    fail(n, key + ": expected an integer >= " + std::to_string(lo));
  return static_cast<int64_t>(v);
}

bool SweepReader::boolean(const toml::node* n, const std::string& key) const {
  if (!n->is_boolean()) fail(n, key + ": expected true or false");
  return n->as_boolean()->get();
}

const ParamSpec& SweepReader::param(const toml::node* n, const std::string& name, const std::string& key) const {
  if (name == "runs" || name == "seed") fail(n, key + ": '" + name + "' is set at the top level of the file");
  const ParamSpec* p = m_->param(name);
  if (!p) {
    Keys names;
    for (const auto& s : m_->params)
      if (s.name != "runs" && s.name != "seed") names.push_back(s.name);
    fail(n, key + ": unknown parameter '" + name + "' of " + m_->name + " (known: " + join(names) + ")");
  }
  return *p;
}

void SweepReader::metric(const toml::node* n, const std::string& name, const std::string& key) const {
  Keys names;
  for (const auto& mm : m_->metrics) {
    if (mm.series) continue;
    if (mm.name == name) return;
    names.push_back(mm.name);
  }
  fail(n, key + ": unknown metric '" + name + "' of " + m_->name + " (scalar metrics: " + join(names) + ")");
}

bool SweepReader::x_axis(const toml::node* n, const std::string& name, const std::string& key, bool metric_ok) const {
  if (m_->param(name)) return false;
  const bool is_metric = std::any_of(m_->metrics.begin(), m_->metrics.end(),
                                     [&](const MetricSpec& mm) { return !mm.series && mm.name == name; });
  if (is_metric && metric_ok) return true;
  if (is_metric) fail(n, key + ": '" + name + "' is a metric; this x must be a parameter (grid axis)");
  param(n, name, key);  // fails naming the known parameters
  return false;
}

std::string SweepReader::where_value(const toml::node* n, const ParamSpec& p, const std::string& key) const {
  return where_value(n, p, key, text(n, key), n->is_string());
}

std::string SweepReader::where_value(const toml::node* n, const ParamSpec& p, const std::string& key, const std::string& t,
                                     bool quoted) const {
  if (!quoted || !is_where_comparison(t)) return where_operand(n, p, key, t);
  std::vector<WhereCondition> conditions;
  try {
    conditions = where_conditions(t);
  } catch (const InputError& e) {
    fail(n, key + ": " + e.what());
  }
  std::string out;
  for (const auto& c : conditions) {
    const bool ordering = c.op != "=" && c.op != "!=";
    const bool numeric = p.type != ParamType::Bool && p.type != ParamType::Choice && p.type != ParamType::Text;
    if (ordering && !numeric)
      fail(n, key + ": '" + c.op + "' compares numbers; " + p.name + " takes words (use = or !=)");
    const std::string operand = where_operand(n, p, key, c.value);
    if (ordering && !parse_number(operand)) fail(n, key + ": '" + c.value + "' is not a number to compare with");
    out += (out.empty() ? "" : ",") + (c.op == "=" ? std::string("==") : c.op) + operand;
  }
  return out;
}

std::string SweepReader::where_operand(const toml::node* n, const ParamSpec& p, const std::string& key, std::string t) const {
  if (p.type == ParamType::Bool) return (t == "true" || t == "1" || t == "yes") ? "true" : "false";
  if (p.type == ParamType::Choice && !p.choices.empty() &&
      std::find(p.choices.begin(), p.choices.end(), t) == p.choices.end())
    fail(n, key + ": '" + t + "' is not a value of " + p.name + " (" + join(p.choices) + ")");
  if (p.type == ParamType::Choice || p.type == ParamType::Text) return t;
  if (auto v = parse_number(t)) return canonical_text(p, *v);
  return t;
}

std::map<std::string, std::string> SweepReader::where(const toml::node* n, const std::string& key) const {
  std::map<std::string, std::string> out;
  if (n->is_string() || n->is_array()) {
    std::vector<const toml::node*> items;
    if (n->is_string()) items.push_back(n);
    else
      for (const auto& e : *n->as_array()) items.push_back(&e);
    for (const toml::node* item : items) {
      const std::string c = string(item, key + ".where");
      const std::size_t at = c.find_first_of("<>!=");
      std::string name = at == std::string::npos ? "" : c.substr(0, at);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      while (!name.empty() && name.front() == ' ') name.erase(name.begin());
      if (name.empty())
        fail(item, key + ".where: '" + c + "': expected NAME=VALUE or a comparison such as \"d<=256\"");
      std::string rest = c.substr(at);
      if (rest[0] == '=' && (rest.size() < 2 || rest[1] != '=')) rest = "==" + rest.substr(1);
      std::string value = where_value(item, param(item, name, key + ".where"), key + ".where." + name, rest, true);
      if (value.rfind("==", 0) == 0 && value.find(',') == std::string::npos) value = value.substr(2);  // d=64: a value
      auto [it, fresh] = out.emplace(name, value);
      if (!fresh) {  // a second condition on the same parameter: both must hold
        auto as_comparison = [](const std::string& v) { return is_where_comparison(v) ? v : "==" + v; };
        it->second = as_comparison(it->second) + "," + as_comparison(value);
      }
    }
    return out;
  }
  for (const auto& [k, v] : ordered(table(n, key)))
    out[k] = where_value(v, param(v, k, key + ".where"), key + ".where." + k);
  return out;
}

std::string SweepReader::formula(const toml::node* n, const std::string& key, const std::string& also,
                                 bool metrics) const {
  const std::string s = text(n, key);
  std::vector<std::string> vars;
  try {
    vars = Expression(s).variables();
  } catch (const InputError& e) {
    fail(n, key + ": " + e.what());
  }
  for (const auto& var : vars) {
    if (m_->param(var) || var == also) continue;
    const bool metric = metrics && std::any_of(m_->metrics.begin(), m_->metrics.end(), [&](const MetricSpec& mm) {
      return !mm.series && (mm.name == var || mm.name + "_sem" == var || mm.name + "_std" == var);
    });
    if (!metric)
      fail(n, key + ": '" + s + "' reads unknown " + (metrics ? "parameter or metric '" : "parameter '") + var + "'");
  }
  return s;
}

std::string SweepReader::series_metric(const toml::node* n, const std::string& key) const {
  const std::string name = string(n, key);
  std::string names;
  for (const auto& mm : m_->metrics) {
    if (!mm.series) continue;
    if (mm.name == name) return name;
    names += (names.empty() ? "" : ", ") + mm.name;
  }
  fail(n, key + ": '" + name + "' is not a series metric of " + m_->name + " (series: " + names + ")");
}

}  // namespace scalinglab
