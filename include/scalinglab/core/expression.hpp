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

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace scalinglab
