#include "scalinglab/lab/param.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"

namespace scalinglab {

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::Int: return "int";
    case ParamType::Real: return "real";
    case ParamType::Count: return "count";
    case ParamType::Choice: return "choice";
    case ParamType::Bool: return "bool";
    case ParamType::Text: return "text";
  }
  return "?";
}

namespace {
ParamSpec make_spec(std::string name, ParamType type, std::string def, std::string doc) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = type;
  s.default_value = std::move(def);
  s.doc = std::move(doc);
  return s;
}
}  // namespace

ParamSpec int_param(std::string name, std::string def, std::string doc, double lo, double hi) {
  return make_spec(std::move(name), ParamType::Int, std::move(def), std::move(doc)).range(lo, hi);
}
ParamSpec real_param(std::string name, std::string def, std::string doc, double lo, double hi) {
  return make_spec(std::move(name), ParamType::Real, std::move(def), std::move(doc)).range(lo, hi);
}
ParamSpec count_param(std::string name, std::string def, std::string doc, double lo) {
  return make_spec(std::move(name), ParamType::Count, std::move(def), std::move(doc))
      .range(lo, std::numeric_limits<double>::infinity());
}
ParamSpec choice_param(std::string name, std::string def, std::vector<std::string> choices, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::Choice, std::move(def), std::move(doc));
  s.choices = std::move(choices);
  return s;
}
ParamSpec bool_param(std::string name, std::string def, std::string doc) {
  return make_spec(std::move(name), ParamType::Bool, std::move(def), std::move(doc));
}
ParamSpec text_param(std::string name, std::string def, std::string doc,
                     std::function<void(const std::string&)> validate) {
  ParamSpec s = make_spec(std::move(name), ParamType::Text, std::move(def), std::move(doc));
  s.validate = std::move(validate);
  return s;
}

std::vector<double> parse_number_list(const std::string& text) {
  std::vector<double> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const auto v = parse_number(item);
    if (!v) throw InputError("'" + item + "' in '" + text + "' is not a number (expected numbers separated by commas)");
    out.push_back(*v);
    start = end + 1;
  }
  return out;
}

std::function<void(const std::string&)> number_list_validator(std::size_t min_size) {
  return [min_size](const std::string& t) {
    if (parse_number_list(t).size() < min_size)
      throw InputError("expected at least " + std::to_string(min_size) + " numbers separated by commas");
  };
}

std::function<void(const std::string&)> formula_validator(std::vector<std::string> variables) {
  return [variables](const std::string& t) {
    for (const auto& v : Expression(t).variables())
      if (std::find(variables.begin(), variables.end(), v) == variables.end()) {
        std::string known;
        for (const auto& k : variables) known += (known.empty() ? "" : ", ") + k;
        throw InputError("formula '" + t + "' reads '" + v + "'; it may read " + known);
      }
  };
}

std::string format_number(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (std::isnan(x)) return "nan";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, res.ptr);
}

namespace {

std::string describe_range(const ParamSpec& s) {
  std::string r = "[" + format_number(s.min) + ", " + format_number(s.max) + "]";
  return r;
}

// Checks type constraints and range; returns the canonical number.
double check_number(const ParamSpec& s, double v, const std::string& context, const std::string& shown) {
  auto bad = [&](const std::string& why) {
    throw InputError(context + ": parameter " + s.name + "=" + shown + " " + why);
  };
  if (std::isnan(v)) bad("is not a number");
  if (s.type == ParamType::Int) {
    if (!std::isfinite(v)) bad("must be a finite integer");
    if (v != std::floor(v)) bad("must be an integer");
  }
  if (s.type == ParamType::Count && std::isfinite(v) && v != std::floor(v)) bad("must be an integer or inf");
  if (v < s.min || v > s.max) bad("is out of range " + describe_range(s));
  return v;
}

}  // namespace

std::string canonical_text(const ParamSpec& s, double v) {
  if ((s.type == ParamType::Int || s.type == ParamType::Count) && std::isfinite(v) && std::fabs(v) < 9e15)
    return std::to_string(static_cast<long long>(v));
  return format_number(v);
}

std::pair<std::string, std::string> split_assignment(const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("expected NAME=VALUE, got '" + arg + "'");
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

Params resolve_params(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& given,
                      const std::string& context) {
  for (const auto& [name, value] : given) {
    bool known = false;
    for (const auto& s : specs) known = known || s.name == name;
    if (!known) {
      std::string names;
      for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s.name;
      throw InputError(context + ": unknown parameter '" + name + "' (known: " + names + ")");
    }
  }
  Params p;
  p.entries_.reserve(specs.size());
  std::vector<std::size_t> formulas;
  for (const auto& s : specs) {
    auto it = given.find(s.name);
    const std::string raw = it != given.end() ? it->second : s.default_value;
    Params::Entry e{&s, raw, std::numeric_limits<double>::quiet_NaN(), ""};
    switch (s.type) {
      case ParamType::Choice: {
        bool ok = false;
        for (const auto& c : s.choices) ok = ok || c == raw;
        if (!ok) {
          std::string cs;
          for (const auto& c : s.choices) cs += (cs.empty() ? "" : ", ") + c;
          throw InputError(context + ": parameter " + s.name + "='" + raw + "' is not one of: " + cs);
        }
        break;
      }
      case ParamType::Text: {
        if (s.validate) {
          try {
            s.validate(raw);
          } catch (const InputError& err) {
            throw InputError(context + ": parameter " + s.name + "='" + raw + "': " + err.what());
          }
        }
        break;
      }
      case ParamType::Bool: {
        if (raw == "true" || raw == "1" || raw == "yes") e.number = 1, e.text = "true";
        else if (raw == "false" || raw == "0" || raw == "no") e.number = 0, e.text = "false";
        else throw InputError(context + ": parameter " + s.name + "='" + raw + "' must be true or false");
        break;
      }
      default: {
        auto v = parse_number(raw);
        if (!v) {
          if (!s.expression)
            throw InputError(context + ": parameter " + s.name + "='" + raw + "' is not a valid " +
                             type_name(s.type) + (s.type == ParamType::Count ? " (integer or inf)" : ""));
          e.given = raw;
          formulas.push_back(p.entries_.size());
        } else {
          e.number = check_number(s, *v, context, raw);
          e.text = canonical_text(s, e.number);
        }
      }
    }
    p.entries_.push_back(std::move(e));
  }
  // Formulas read the plain numeric values (a formula may not refer to another formula).
  for (std::size_t idx : formulas) {
    auto& e = p.entries_[idx];
    Expression expr(e.given);
    double v = expr.eval([&](const std::string& name) -> std::optional<double> {
      for (const auto& other : p.entries_)
        if (other.spec->name == name && other.given.empty() && !std::isnan(other.number)) return other.number;
      return std::nullopt;
    });
    // A formula must give a number: 0/0 or 1/0 is a mistake, not a value (type "inf" to mean inf).
    if (!std::isfinite(v))
      throw InputError(context + ": parameter " + e.spec->name + "='" + e.given + "' evaluates to " + format_number(v) +
                       "; a formula must give a finite number");
    if (e.spec->type != ParamType::Real) v = std::floor(v + 1e-9);
    e.number = check_number(*e.spec, v, context, "'" + e.given + "' (= " + format_number(v) + ")");
    e.text = canonical_text(*e.spec, e.number);
  }
  return p;
}

const Params::Entry& Params::entry(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.spec->name == name) return e;
  throw std::out_of_range("no parameter named " + name);
}
bool Params::has(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.spec->name == name) return true;
  return false;
}
double Params::real(const std::string& name) const { return entry(name).number; }
double Params::count(const std::string& name) const { return entry(name).number; }
int64_t Params::integer(const std::string& name) const {
  const double v = entry(name).number;
  if (!std::isfinite(v)) throw InputError("parameter " + name + " must be finite here");
  if (std::abs(v) >= 9.2e18) throw InputError("parameter " + name + " is too large here (" + format_number(v) + ")");
  return static_cast<int64_t>(v);
}
const std::string& Params::choice(const std::string& name) const { return entry(name).text; }
bool Params::flag(const std::string& name) const { return entry(name).number != 0; }

std::string Params::canonical(const std::vector<std::string>& skip) const {
  std::string out;
  for (const auto& e : entries_) {
    bool skipped = false;
    for (const auto& s : skip) skipped = skipped || s == e.spec->name;
    if (skipped) continue;
    if (!out.empty()) out += ' ';
    out += e.spec->name + "=" + e.text;
  }
  return out;
}

std::string Params::stream_text() const {
  std::vector<std::string> skip = {"runs", "seed"};
  for (const auto& e : entries_)
    if (e.spec->implementation || e.spec->same_world) skip.push_back(e.spec->name);
  return canonical(skip);
}

namespace {

// An integral value as JSON: signed within int64, unsigned up to 2^64 (seeds), a float beyond (a
// finite count such as T = 1e300); a cast out of range would be undefined and print garbage.
nlohmann::json integral_json(double x) {
  if (x > -9.2e18 && x < 9.2e18) return static_cast<int64_t>(x);
  if (x >= 0 && x < 18446744073709551616.0) return static_cast<uint64_t>(x);
  return x;
}

}  // namespace

nlohmann::json Params::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& e : entries_) {
    const auto& s = *e.spec;
    switch (s.type) {
      case ParamType::Choice:
      case ParamType::Text: j[s.name] = e.text; break;
      case ParamType::Bool: j[s.name] = e.number != 0; break;
      case ParamType::Int: j[s.name] = integral_json(e.number); break;
      case ParamType::Count:
        if (std::isinf(e.number)) j[s.name] = "inf";
        else j[s.name] = integral_json(e.number);
        break;
      case ParamType::Real:
        if (std::isinf(e.number)) j[s.name] = e.number > 0 ? "inf" : "-inf";
        else j[s.name] = e.number;
        break;
    }
  }
  return j;
}

std::optional<double> parse_number(const std::string& text) {
  std::string t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  std::size_t b = 0;
  while (b < t.size() && std::isspace(static_cast<unsigned char>(t[b]))) ++b;
  t = t.substr(b);
  if (t == "inf" || t == "+inf" || t == "Infinity" || t == "infinity") return std::numeric_limits<double>::infinity();
  if (t == "-inf") return -std::numeric_limits<double>::infinity();
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || std::isnan(v)) return std::nullopt;
  return v;
}

namespace {

bool equals(const Params::Entry& e, const std::string& wanted) {
  if (e.text == wanted || (!e.given.empty() && e.given == wanted)) return true;
  char* end = nullptr;
  const double a = std::strtod(e.text.c_str(), &end);
  if (end == e.text.c_str() || *end) return false;
  const double b = std::strtod(wanted.c_str(), &end);
  return end != wanted.c_str() && !*end && a == b;
}

bool meets(const Params::Entry& e, const WhereCondition& c) {
  if (c.op == "=") return equals(e, c.value);
  if (c.op == "!=") return !equals(e, c.value);
  const auto v = parse_number(c.value);
  if (!v || std::isnan(e.number)) return false;  // an ordering needs two numbers
  if (c.op == "<") return e.number < *v;
  if (c.op == "<=") return e.number <= *v;
  if (c.op == ">") return e.number > *v;
  return e.number >= *v;
}

}  // namespace

bool is_where_comparison(const std::string& wanted) {
  const std::size_t at = wanted.find_first_not_of(' ');
  return at != std::string::npos && std::string_view("<>!=").find(wanted[at]) != std::string_view::npos;
}

std::vector<WhereCondition> where_conditions(const std::string& wanted) {
  if (!is_where_comparison(wanted)) return {{"=", wanted}};
  std::vector<WhereCondition> out;
  std::size_t start = 0;
  while (start <= wanted.size()) {
    std::size_t end = wanted.find(',', start);
    if (end == std::string::npos) end = wanted.size();
    std::string part = wanted.substr(start, end - start);
    const std::size_t b = part.find_first_not_of(' ');
    part = b == std::string::npos ? "" : part.substr(b);
    std::string op;
    for (const char* candidate : {"<=", ">=", "!=", "==", "<", ">", "="})
      if (part.rfind(candidate, 0) == 0) {
        op = candidate;
        break;
      }
    std::string value = part.substr(op.size());
    while (!value.empty() && value.front() == ' ') value.erase(value.begin());
    while (!value.empty() && value.back() == ' ') value.pop_back();
    if (op.empty() || value.empty() || is_where_comparison(value))
      throw InputError("where condition '" + wanted + "': expected comparisons such as \"<=256\" or \">=64, <1e4\" " +
                       "(operators < <= > >= == !=, joined by commas)");
    out.push_back({op == "==" ? "=" : op, value});
    start = end + 1;
  }
  return out;
}

std::string where_text(const std::string& name, const std::string& wanted) {
  if (!is_where_comparison(wanted)) return name + "=" + wanted;
  std::string out;
  for (const auto& c : where_conditions(wanted)) out += (out.empty() ? "" : " and ") + name + c.op + c.value;
  return out;
}

bool entry_matches(const Params::Entry& e, const std::string& wanted) {
  for (const auto& c : where_conditions(wanted))
    if (!meets(e, c)) return false;
  return true;
}

bool params_match(const Params& p, const std::map<std::string, std::string>& where) {
  for (const auto& [name, value] : where)
    if (p.has(name) && !entry_matches(p.entry(name), value)) return false;
  return true;
}

}  // namespace scalinglab
