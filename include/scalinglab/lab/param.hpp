#pragma once
// Typed parameters, declared once per measure. A declaration (ParamSpec) is the single source of
// truth for parsing, validation, `describe`, the Python keyword arguments and the JSON/CSV columns.
//
// Values always arrive as text (command line `k=v`, sweep files, Python kwargs are all turned into
// text first), so there is exactly one parser per type.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace scalinglab {

enum class ParamType {
  Int,     // integer; "1e4" accepted when integral
  Real,    // floating point
  Count,   // positive integer or "inf" (e.g. number of samples T; inf = the population)
  Choice,  // one of a list of words
  Bool,    // true/false/1/0/yes/no
  Text,    // free text checked by the parameter's validator (a list of numbers, a formula of l, ...)
};

const char* type_name(ParamType t);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Real;
  std::string default_value;  // as a user would type it
  std::string doc;            // one line
  double min = -std::numeric_limits<double>::infinity();  // inclusive range for numbers
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // for Choice
  // When true, the value may be a formula of other numeric parameters, e.g. P = "d/8"
  // (evaluated after the plain values; Int and Count results are rounded down).
  bool expression = false;
  // An implementation switch that does not change what is computed (e.g. a faster exact path):
  // excluded from the random-stream key, so toggling it gives the same draws and results.
  bool implementation = false;
  // A parameter of the learner, not of the world it learns (a width, a step size, a training length):
  // excluded from the random-stream key, so that every value of it sees the same world (drawn
  // distribution, data) for a given run index, and curves against it compare learners on one world.
  // A measure drawing training randomness derives it from the parameter itself.
  bool same_world = false;
  // Text parameters: throws InputError (message without the parameter's name) for a bad value.
  std::function<void(const std::string&)> validate;

  // Fluent helpers for compact declarations.
  ParamSpec& range(double lo, double hi) { min = lo; max = hi; return *this; }
  ParamSpec& allow_expression() { expression = true; return *this; }
  ParamSpec& implementation_switch() { implementation = true; return *this; }
  ParamSpec& same_world_param() { same_world = true; return *this; }
};

ParamSpec int_param(std::string name, std::string def, std::string doc, double lo = 1,
                    double hi = std::numeric_limits<double>::infinity());
ParamSpec real_param(std::string name, std::string def, std::string doc,
                     double lo = -std::numeric_limits<double>::infinity(),
                     double hi = std::numeric_limits<double>::infinity());
ParamSpec count_param(std::string name, std::string def, std::string doc, double lo = 1);
ParamSpec choice_param(std::string name, std::string def, std::vector<std::string> choices, std::string doc);
ParamSpec bool_param(std::string name, std::string def, std::string doc);
ParamSpec text_param(std::string name, std::string def, std::string doc,
                     std::function<void(const std::string&)> validate);

// Validators and parsers for text parameters: a comma-separated list of numbers ("0.2, 0.6,
// 0.95"), and a formula of the given variables ("exp(7*l/L)").
std::vector<double> parse_number_list(const std::string& text);
std::function<void(const std::string&)> number_list_validator(std::size_t min_size = 1);
std::function<void(const std::string&)> formula_validator(std::vector<std::string> variables);

// Parameter values resolved against their declarations, in declaration order.
class Params {
 public:
  struct Entry {
    const ParamSpec* spec;
    std::string text;   // canonical text ("inf", "0.5", "q0", ...)
    double number = 0;  // numeric value (NaN for choices)
    std::string given;  // what the user wrote when it was a formula, else empty
  };

  double real(const std::string& name) const;
  int64_t integer(const std::string& name) const;  // Int parameters (and finite Counts)
  double count(const std::string& name) const;     // Count parameters: +inf for "inf"
  const std::string& choice(const std::string& name) const;  // Choice and Text parameters
  bool flag(const std::string& name) const;
  bool has(const std::string& name) const;
  const Entry& entry(const std::string& name) const;
  const std::vector<Entry>& entries() const { return entries_; }

  // "N=100 M=5 ..." over all parameters except those in `skip`: the identity of a grid point.
  std::string canonical(const std::vector<std::string>& skip = {"runs", "seed"}) const;
  // The same without implementation switches and learner parameters: hashed into the random-stream key.
  std::string stream_text() const;
  // {"N": 100, "T": "inf", "scheme": "q0", ...}: ints as integers, inf as the string "inf".
  nlohmann::json to_json() const;

  std::vector<Entry> entries_;
};

// Parses a number as parameters do: surrounding spaces ignored, "inf", "+inf", "-inf" accepted,
// NaN and trailing text refused (nullopt).
std::optional<double> parse_number(const std::string& text);

// Formats a double the shortest way that round-trips ("0.1", "1000", "inf").
std::string format_number(double x);
// The canonical text of a numeric value of parameter `s`: integers (Int, finite Count) in plain
// digits ("100000", not "1e+05"), other numbers by format_number.
std::string canonical_text(const ParamSpec& s, double v);

// Resolves `given` (name -> text) against `specs`: defaults fill the gaps, then every value is
// parsed, formulas evaluated and ranges checked. `context` (e.g. "memory.error" or
// "sweep.toml: [params]") prefixes error messages. Throws InputError.
Params resolve_params(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& given,
                      const std::string& context);

// A condition of a `where` table on one parameter: op is "=", "!=", "<", "<=", ">" or ">=".
struct WhereCondition {
  std::string op;
  std::string value;
};
// Whether a `where` value is a comparison ("<=256", ">=64, <1e4", "!=inf") rather than a value.
bool is_where_comparison(const std::string& wanted);
// The conditions of a `where` value: {"=", wanted} for a plain value; for a comparison, its
// comma-separated conditions (all must hold; "==" reads as "="). Throws InputError when malformed.
std::vector<WhereCondition> where_conditions(const std::string& wanted);
// "d=256", "d<=256", "d>=64 and d<1e4": a condition as a user reads it in messages.
std::string where_text(const std::string& name, const std::string& wanted);

// Whether a parameter's value meets `wanted`: a plain value matches the same canonical text, the
// same number written differently ("1e3" for 1000), or the formula it was given as ("d/8"); a
// comparison ("<=256", "!=inf", ">=64, <1e4") compares numbers (a value that is not a number
// meets no ordering; != is the negation of a plain value's match).
bool entry_matches(const Params::Entry& e, const std::string& wanted);
// Whether `p` meets every condition of `where` (the `where` tables of plots and checks). A
// condition on a parameter `p` does not have (another part's measure) does not apply.
bool params_match(const Params& p, const std::map<std::string, std::string>& where);

// Splits "k=v" into {k, v}; throws InputError if there is no '='.
std::pair<std::string, std::string> split_assignment(const std::string& arg);

}  // namespace scalinglab
