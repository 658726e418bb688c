#include "scalinglab/core/expression.hpp"

#include <cctype>
#include <cmath>
#include <limits>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/quiet_math.hpp"

namespace scalinglab {

namespace {
using NodeP = std::shared_ptr<const Expression::Node>;

// Parsing and evaluation recurse; these bounds keep a hostile formula ("((((...", "-----...",
// "1+1+1+...") from exhausting the stack. Real formulas nest a few levels.
constexpr int kMaxNesting = 200;
constexpr int kMaxTreeDepth = 1000;

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}
  NodeP parse() {
    NodeP n = comparison();
    skip();
    if (i_ != s_.size()) fail("unexpected '" + std::string(1, s_[i_]) + "'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("expression \"" + s_ + "\": " + what + " at position " + std::to_string(i_ + 1));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  NodeP make(Expression::Node n) {
    for (const auto& a : n.args) n.depth = std::max(n.depth, a->depth + 1);
    if (n.depth > kMaxTreeDepth)
      fail("too long a chain of operations (more than " + std::to_string(kMaxTreeDepth) + " levels)");
    return std::make_shared<const Expression::Node>(std::move(n));
  }
  // Counts the parser's recursion (every cycle of the grammar passes through unary()).
  struct Nesting {
    Parser& p;
    explicit Nesting(Parser& parser) : p(parser) {
      if (++p.nesting_ > kMaxNesting)
        p.fail("nested too deeply (more than " + std::to_string(kMaxNesting) + " levels of parentheses, signs or powers)");
    }
    ~Nesting() { --p.nesting_; }
  };
  NodeP binary(const char* op, NodeP a, NodeP b) {
    return make({Expression::Node::Binary, 0, op, {std::move(a), std::move(b)}});
  }
  // Comparisons bind loosest and give 1 or 0: "0.99*R*(T/R >= 6)" is 0.99 R where T/R >= 6, else 0.
  NodeP comparison() {
    NodeP n = sum();
    skip();
    for (const char* op : {"<=", ">=", "<", ">"}) {
      const std::size_t len = std::char_traits<char>::length(op);
      if (s_.compare(i_, len, op) == 0) {
        i_ += len;
        return binary(op, n, sum());
      }
    }
    return n;
  }
  NodeP sum() {
    NodeP n = product();
    for (;;) {
      if (eat('+')) n = binary("+", n, product());
      else if (eat('-')) n = binary("-", n, product());
      else return n;
    }
  }
  NodeP product() {
    NodeP n = unary();
    for (;;) {
      if (eat('*')) n = binary("*", n, unary());
      else if (eat('/')) n = binary("/", n, unary());
      else return n;
    }
  }
  NodeP unary() {
    const Nesting guard(*this);
    if (eat('-')) return make({Expression::Node::Unary, 0, "-", {unary()}});
    if (eat('+')) return unary();
    return power();
  }
  NodeP power() {
    NodeP base = atom();
    if (eat('^')) return binary("^", base, unary());  // right-assoc; exponent may be signed
    return base;
  }
  NodeP atom() {
    skip();
    if (i_ >= s_.size()) fail("unexpected end");
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      NodeP n = comparison();
      if (!eat(')')) fail("missing ')'");
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (end == begin) fail("bad number");
      i_ += static_cast<std::size_t>(end - begin);
      return make({Expression::Node::Number, v, "", {}});
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
      std::string name = s_.substr(start, i_ - start);
      if (eat('(')) {
        std::vector<NodeP> args;
        if (!eat(')')) {
          do args.push_back(comparison());
          while (eat(','));
          if (!eat(')')) fail("missing ')' after arguments of " + name);
        }
        return make({Expression::Node::Call, 0, name, std::move(args)});
      }
      if (name == "inf") return make({Expression::Node::Number, std::numeric_limits<double>::infinity(), "", {}});
      if (name == "pi") return make({Expression::Node::Number, M_PI, "", {}});
      return make({Expression::Node::Variable, 0, name, {}});
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  const std::string& s_;
  std::size_t i_ = 0;
  int nesting_ = 0;
};

double call(const std::string& expr, const std::string& f, const std::vector<double>& a) {
  auto need = [&](std::size_t n) {
    if (a.size() != n)
      throw InputError("expression \"" + expr + "\": " + f + "() takes " + std::to_string(n) + " argument(s)");
  };
  if (f == "min" || f == "max" || f == "pow") {
    need(2);
    return f == "min" ? std::min(a[0], a[1]) : f == "max" ? std::max(a[0], a[1]) : std::pow(a[0], a[1]);
  }
  need(1);
  const double x = a[0];
  if (f == "log") return std::log(x);
  if (f == "log2") return std::log2(x);
  if (f == "log10") return std::log10(x);
  if (f == "exp") return std::exp(x);
  if (f == "sqrt") return std::sqrt(x);
  if (f == "abs") return std::fabs(x);
  if (f == "floor") return std::floor(x);
  if (f == "ceil") return std::ceil(x);
  if (f == "round") return std::round(x);
  if (f == "gamma") return quiet_tgamma(x);  // NaN or infinity at a pole, as 0/0 and 1/0 are
  if (f == "zeta") {
    if (!(x > 1)) throw InputError("expression \"" + expr + "\": zeta(s) needs s > 1");
    return quiet_zeta(x);
  }
  throw InputError("expression \"" + expr + "\": unknown function " + f + "()");
}

double eval_node(const Expression::Node& n, const std::string& expr,
                 const std::function<std::optional<double>(const std::string&)>& lookup) {
  using K = Expression::Node;
  switch (n.kind) {
    case K::Number: return n.value;
    case K::Variable: {
      auto v = lookup(n.name);
      if (!v) throw InputError("expression \"" + expr + "\": unknown variable '" + n.name + "'");
      return *v;
    }
    case K::Unary: return -eval_node(*n.args[0], expr, lookup);
    case K::Binary: {
      const double a = eval_node(*n.args[0], expr, lookup), b = eval_node(*n.args[1], expr, lookup);
      if (n.name == "<=") return a <= b ? 1.0 : 0.0;
      if (n.name == ">=") return a >= b ? 1.0 : 0.0;
      if (n.name == "<") return a < b ? 1.0 : 0.0;
      if (n.name == ">") return a > b ? 1.0 : 0.0;
      switch (n.name[0]) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        default: return std::pow(a, b);
      }
    }
    case K::Call: {
      std::vector<double> a;
      for (auto& arg : n.args) a.push_back(eval_node(*arg, expr, lookup));
      return call(expr, n.name, a);
    }
  }
  return 0;
}

void collect(const Expression::Node& n, std::vector<std::string>& out) {
  if (n.kind == Expression::Node::Variable) {
    for (auto& v : out)
      if (v == n.name) return;
    out.push_back(n.name);
  }
  for (auto& a : n.args) collect(*a, out);
}
}  // namespace

double Expression::call(const std::string& function, const std::vector<double>& args, const std::string& context) {
  return scalinglab::call(context, function, args);
}

Expression::Expression(const std::string& text) : text_(text), root_(Parser(text_).parse()) {}

double Expression::eval(const std::function<std::optional<double>(const std::string&)>& lookup) const {
  return eval_node(*root_, text_, lookup);
}

std::vector<std::string> Expression::variables() const {
  std::vector<std::string> out;
  collect(*root_, out);
  return out;
}

}  // namespace scalinglab
