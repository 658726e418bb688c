#pragma once
// Arithmetic expressions of named variables, e.g. "d/8", "3.5*d^-1", "T^(-(1-1/alpha))".
// Used for parameters given as formulas of other parameters, for reference curves in plots and for
// bounds in checks. Grammar: + - * / ^ (right-associative, binds tighter than unary minus on its
// left operand: -x^2 = -(x^2)), parentheses, numbers (1e-3, inf), variables, and the functions
// log, log2, log10, exp, sqrt, abs, floor, ceil, round, min, max, pow, gamma, zeta (Riemann, s > 1).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace scalinglab {

class Expression {
 public:
  // Parses `text`; throws InputError naming the position of a syntax error.
  explicit Expression(const std::string& text);
  Expression(const Expression&) = default;
  Expression& operator=(const Expression&) = default;

  // Value with variables looked up by `lookup` (which returns nullopt for unknown names: that
  // raises InputError naming the variable).
  double eval(const std::function<std::optional<double>(const std::string&)>& lookup) const;
  // Names of the variables the expression reads.
  std::vector<std::string> variables() const;
  const std::string& text() const { return text_; }

  // The parsed tree, for code that compiles an expression into something else (e.g. the
  // forward-mode derivatives of a fitted law, fit/law_expression).
  struct Node {
    enum Kind { Number, Variable, Unary, Binary, Call } kind;
    double value = 0;
    std::string name;  // variable or function name; operator for Unary/Binary
    std::vector<std::shared_ptr<const Node>> args;
    int depth = 1;     // of the tree below: evaluation recurses this deep
  };
  const Node& root() const { return *root_; }
  // The value of a call of a named function (as eval applies it); throws InputError.
  static double call(const std::string& function, const std::vector<double>& args, const std::string& context);

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace scalinglab
