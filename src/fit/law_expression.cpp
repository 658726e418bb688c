// A law given as an expression: compiled to a tape of operations over all points, with gradients
// with respect to the parameters carried forward (dual numbers, one derivative array per parameter
// an operation depends on).
#include "scalinglab/fit/law_expression.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include <fmt/format.h>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/core/quiet_math.hpp"
#include "scalinglab/lab/limits.hpp"

namespace scalinglab::fit {

using Eigen::ArrayXd;
using Eigen::ArrayXXd;
using Eigen::Index;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A law gives NaN or infinity at a pole of gamma, which a descent steps back from and `predict`
// reports as no finite loss (core/quiet_math).
double gamma_fn(double x) { return quiet_tgamma(x); }
double digamma_fn(double x) { return quiet_digamma(x); }

struct Op {
  enum Kind { Const, Input, Param, Neg, Add, Sub, Mul, Div, Pow, Compare, Call } kind = Const;
  std::string name;          // comparison operator or function name
  std::vector<int> args;     // operand ops (earlier in the tape)
  int index = -1;            // input or parameter number
  double value = 0;          // constants
  std::uint64_t deps = 0;    // parameters the value depends on (one bit each)
  bool data = false;         // varies from point to point
  bool log_used = false;     // a data-only op used as the base of a power: its log is kept too
};

struct Tape {
  std::string text;
  std::vector<Op> ops;  // operands before users; the last is the law
  std::vector<std::string> inputs, parameters;
  std::vector<bool> log_coordinate;
};

// Data-only values, computed once per data set.
struct Prepared {
  std::vector<ArrayXd> value, log;
};

// ---- compiling -------------------------------------------------------------------------------

class Compiler {
 public:
  Compiler(Tape& tape, const std::vector<std::string>& data_names) : t_(tape), data_(data_names) {}

  int compile(const Expression::Node& n) {
    using K = Expression::Node;
    Op op;
    switch (n.kind) {
      case K::Number:
        op.kind = Op::Const;
        op.value = n.value;
        return push(op);
      case K::Variable: {
        if (std::find(data_.begin(), data_.end(), n.name) != data_.end()) {
          op.kind = Op::Input;
          op.index = index_of(t_.inputs, n.name);
          op.data = true;
        } else {
          op.kind = Op::Param;
          op.index = index_of(t_.parameters, n.name);
          if (op.index >= 64)
            throw InputError("law \"" + t_.text + "\": more than 64 parameters");
          op.deps = std::uint64_t{1} << op.index;
        }
        return push(op);
      }
      case K::Unary:
        op.kind = Op::Neg;
        break;
      case K::Binary:
        if (n.name == "+") op.kind = Op::Add;
        else if (n.name == "-") op.kind = Op::Sub;
        else if (n.name == "*") op.kind = Op::Mul;
        else if (n.name == "/") op.kind = Op::Div;
        else if (n.name == "^") op.kind = Op::Pow;
        else op.kind = Op::Compare;
        op.name = n.name;
        break;
      case K::Call:
        op.kind = n.name == "pow" ? Op::Pow : Op::Call;
        op.name = n.name;
        break;
    }
    for (const auto& a : n.args) op.args.push_back(compile(*a));
    for (int a : op.args) {
      op.deps |= t_.ops[static_cast<std::size_t>(a)].deps;
      op.data = op.data || t_.ops[static_cast<std::size_t>(a)].data;
    }
    if (op.kind == Op::Call) check_call(op);
    if (op.kind == Op::Pow)
      for (int a : op.args) t_.ops[static_cast<std::size_t>(a)].log_used = true;
    // Constant subtrees are folded now.
    if (op.deps == 0 && !op.data) {
      std::vector<double> v;
      for (int a : op.args) v.push_back(t_.ops[static_cast<std::size_t>(a)].value);
      Op c;
      c.kind = Op::Const;
      c.value = scalar_value(op, v);
      return push(c);
    }
    return push(op);
  }

 private:
  static int index_of(std::vector<std::string>& names, const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<int>(it - names.begin());
    names.push_back(name);
    return static_cast<int>(names.size() - 1);
  }
  void check_call(const Op& op) const {
    static const std::vector<std::string> one = {"log", "log2", "log10", "exp", "sqrt", "abs",
                                                 "floor", "ceil", "round", "gamma", "zeta"};
    const bool two = op.name == "min" || op.name == "max";
    if (!two && std::find(one.begin(), one.end(), op.name) == one.end())
      throw InputError("law \"" + t_.text + "\": unknown function " + op.name + "()");
    if (op.args.size() != (two ? 2u : 1u))
      throw InputError("law \"" + t_.text + "\": " + op.name + "() takes " + (two ? "2" : "1") + " argument(s)");
    if (op.name == "zeta" && op.deps)
      throw InputError("law \"" + t_.text + "\": zeta() of a fitted parameter has no derivative here");
  }
  double scalar_value(const Op& op, const std::vector<double>& v) const {
    switch (op.kind) {
      case Op::Neg: return -v[0];
      case Op::Add: return v[0] + v[1];
      case Op::Sub: return v[0] - v[1];
      case Op::Mul: return v[0] * v[1];
      case Op::Div: return v[0] / v[1];
      case Op::Pow: return std::pow(v[0], v[1]);
      case Op::Compare:
        return op.name == "<=" ? v[0] <= v[1] : op.name == ">=" ? v[0] >= v[1] : op.name == "<" ? v[0] < v[1] : v[0] > v[1];
      case Op::Call: return op.name == "gamma" ? gamma_fn(v[0]) : Expression::call(op.name, v, t_.text);
      default: return op.value;
    }
  }
  int push(const Op& op) {
    t_.ops.push_back(op);
    return static_cast<int>(t_.ops.size() - 1);
  }
  Tape& t_;
  const std::vector<std::string>& data_;
};

// ---- evaluating ------------------------------------------------------------------------------

// An operand: an array over points, or one number.
struct Arg {
  const ArrayXd* arr = nullptr;
  double s = 0;
};

// Calls f with each operand as an Eigen array expression (a number broadcast without a copy).
template <class F>
void both(const Arg& a, const Arg& b, Index n, F&& f) {
  if (a.arr && b.arr) f(*a.arr, *b.arr);
  else if (a.arr) f(*a.arr, ArrayXd::Constant(n, b.s));
  else if (b.arr) f(ArrayXd::Constant(n, a.s), *b.arr);
  else f(ArrayXd::Constant(n, a.s), ArrayXd::Constant(n, b.s));
}
template <class F>
void one(const Arg& a, Index n, F&& f) {
  if (a.arr) f(*a.arr);
  else f(ArrayXd::Constant(n, a.s));
}

// Per-op results of one evaluation; reused across evaluations on a thread (no allocation once
// sized).
struct Workspace {
  std::vector<ArrayXd> value;               // data-dependent ops
  std::vector<double> scalar;               // ops that do not vary over points
  std::vector<std::vector<ArrayXd>> grad;   // [op][parameter] storage for data-dependent ops
  std::vector<std::vector<Arg>> gview;      // [op][parameter]: the derivative (own storage, an
                                            // operand's array passed through, or a constant)
  std::vector<std::vector<double>> sgrad;   // [op][parameter] for the others
  ArrayXd pa, pb;                           // partial derivatives of the current op

  void size(std::size_t ops, std::size_t params, Index n) {
    value.resize(ops);
    scalar.resize(ops);
    grad.resize(ops);
    gview.resize(ops);
    sgrad.resize(ops);
    for (std::size_t i = 0; i < ops; ++i) {
      grad[i].resize(params);
      gview[i].resize(params);
      sgrad[i].resize(params);
    }
    pa.resize(n);
    pb.resize(n);
  }
};

class Evaluator {
 public:
  Evaluator(const Tape& t, const Prepared& p, Workspace& w, const double* theta, Index n)
      : t_(t), p_(p), w_(w), theta_(theta), n_(n) {}

  void run() {
    for (std::size_t i = 0; i < t_.ops.size(); ++i) {
      const Op& op = t_.ops[i];
      if (op.kind == Op::Const || (op.deps == 0 && op.data)) continue;  // folded or prepared
      if (op.kind == Op::Param) {
        const auto k = static_cast<std::size_t>(op.index);
        const double c = theta_[k];
        w_.scalar[i] = t_.log_coordinate[k] ? std::exp(c) : c;
        w_.sgrad[i][k] = t_.log_coordinate[k] ? w_.scalar[i] : 1.0;
        continue;
      }
      if (op.data) vector_op(i, op);
      else scalar_op(i, op);
    }
  }

  // A data-only op (while preparing).
  void data_op(std::size_t i) { vector_op(i, t_.ops[i]); }

  Arg value(std::size_t i) const {
    const Op& op = t_.ops[i];
    if (op.kind == Op::Const) return {nullptr, op.value};
    if (op.data) return {op.deps ? &w_.value[i] : &p_.value[i], 0};
    return {nullptr, w_.scalar[i]};
  }
  Arg grad(std::size_t i, std::size_t k) const {
    const Op& op = t_.ops[i];
    if (op.data) return w_.gview[i][k];
    return {nullptr, w_.sgrad[i][k]};
  }

 private:
  bool has(const Op& op, std::size_t k) const { return (op.deps >> k) & 1u; }

  // The op's partial derivatives with respect to its operands, as numbers.
  void scalar_op(std::size_t i, const Op& op) {
    const std::size_t a = static_cast<std::size_t>(op.args[0]);
    const double x = value(a).s;
    const bool binary = op.args.size() == 2;
    const std::size_t b = binary ? static_cast<std::size_t>(op.args[1]) : a;
    const double y = binary ? value(b).s : 0.0;
    double v = 0, pa = 0, pb = 0;
    switch (op.kind) {
      case Op::Neg: v = -x; pa = -1; break;
      case Op::Add: v = x + y; pa = 1; pb = 1; break;
      case Op::Sub: v = x - y; pa = 1; pb = -1; break;
      case Op::Mul: v = x * y; pa = y; pb = x; break;
      case Op::Div: v = x / y; pa = 1 / y; pb = -v / y; break;
      case Op::Pow:
        v = std::pow(x, y);
        pa = y == 0 ? 0.0 : y * std::pow(x, y - 1);
        pb = t_.ops[b].deps ? v * std::log(x) : 0.0;
        break;
      case Op::Compare:
        v = op.name == "<=" ? x <= y : op.name == ">=" ? x >= y : op.name == "<" ? x < y : x > y;
        break;
      case Op::Call: scalar_call(op.name, x, y, v, pa, pb); break;
      default: break;
    }
    w_.scalar[i] = v;
    for (std::size_t k = 0; k < t_.parameters.size(); ++k) {
      if (!has(op, k)) continue;
      double g = 0;
      if (has(t_.ops[a], k)) g += w_.sgrad[a][k] * pa;
      if (binary && has(t_.ops[b], k)) g += w_.sgrad[b][k] * pb;
      w_.sgrad[i][k] = g;
    }
  }

  static void scalar_call(const std::string& f, double x, double y, double& v, double& pa, double& pb) {
    if (f == "exp") { v = std::exp(x); pa = v; }
    else if (f == "log") { v = std::log(x); pa = 1 / x; }
    else if (f == "log2") { v = std::log2(x); pa = 1 / (x * M_LN2); }
    else if (f == "log10") { v = std::log10(x); pa = 1 / (x * M_LN10); }
    else if (f == "sqrt") { v = std::sqrt(x); pa = 0.5 / v; }
    else if (f == "abs") { v = std::fabs(x); pa = x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }
    else if (f == "floor") v = std::floor(x);
    else if (f == "ceil") v = std::ceil(x);
    else if (f == "round") v = std::round(x);
    else if (f == "gamma") { v = gamma_fn(x); pa = v * digamma_fn(x); }
    else if (f == "min") { v = std::min(x, y); pa = x <= y; pb = 1 - pa; }
    else if (f == "max") { v = std::max(x, y); pa = x >= y; pb = 1 - pa; }
  }

  // Data-dependent op: value and derivative arrays over the points.
  void vector_op(std::size_t i, const Op& op) {
    const std::size_t a = static_cast<std::size_t>(op.args[0]);
    const bool binary = op.args.size() == 2;
    const std::size_t b = binary ? static_cast<std::size_t>(op.args[1]) : a;
    const Arg A = value(a), B = binary ? value(b) : Arg{};
    const bool da = t_.ops[a].deps != 0, db = binary && t_.ops[b].deps != 0;
    ArrayXd& v = w_.value[i];
    v.resize(n_);
    Arg pa{nullptr, 0}, pb{nullptr, 0};
    switch (op.kind) {
      case Op::Neg:
        one(A, n_, [&](auto&& x) { v = -x; });
        pa.s = -1;
        break;
      case Op::Add:
        both(A, B, n_, [&](auto&& x, auto&& y) { v = x + y; });
        pa.s = 1;
        pb.s = 1;
        break;
      case Op::Sub:
        both(A, B, n_, [&](auto&& x, auto&& y) { v = x - y; });
        pa.s = 1;
        pb.s = -1;
        break;
      case Op::Mul:
        both(A, B, n_, [&](auto&& x, auto&& y) { v = x * y; });
        pa = B;
        pb = A;
        break;
      case Op::Div:
        both(A, B, n_, [&](auto&& x, auto&& y) { v = x / y; });
        break;  // derivatives written directly below
      case Op::Pow: power(a, A, B, da, db, v, pa, pb); break;
      case Op::Compare:
        both(A, B, n_, [&](auto&& x, auto&& y) {
          if (op.name == "<=") v = (x <= y).template cast<double>();
          else if (op.name == ">=") v = (x >= y).template cast<double>();
          else if (op.name == "<") v = (x < y).template cast<double>();
          else v = (x > y).template cast<double>();
        });
        break;
      case Op::Call: vector_call(op.name, A, B, da, db, v, pa, pb); break;
      default: break;
    }
    // d out / d theta_k = d a / d theta_k * pa + d b / d theta_k * pb; a derivative that is an
    // operand's times 1 is passed through, and one that is constant over points stays a number.
    for (std::size_t k = 0; k < t_.parameters.size(); ++k) {
      if (!has(op, k)) continue;
      const bool ta = has(t_.ops[a], k), tb = binary && has(t_.ops[b], k);
      Arg& out = w_.gview[i][k];
      ArrayXd& g = w_.grad[i][k];
      if (!ta && !tb) {
        out = {nullptr, 0.0};
        continue;
      }
      const Arg ga = ta ? grad(a, k) : Arg{}, gb = tb ? grad(b, k) : Arg{};
      if (op.kind == Op::Div) {  // d(a/b) = da / b - db a / b^2, in one pass per term
        g.resize(n_);
        if (ta) both(ga, B, n_, [&](auto&& x, auto&& y) { g = x / y; });
        if (tb) {
          if (ta) both(gb, B, n_, [&](auto&& x, auto&& y) { g -= x * v / y; });
          else both(gb, B, n_, [&](auto&& x, auto&& y) { g = -x * v / y; });
        }
        out = {&g, 0.0};
        continue;
      }
      if (op.kind == Op::Pow && t_.ops[a].data && t_.ops[a].deps == 0) {  // d(x^b) = db x^b log x
        g.resize(n_);
        const ArrayXd& lx = p_.log[a];
        one(gb, n_, [&](auto&& x) { g = x * v * lx; });
        out = {&g, 0.0};
        continue;
      }
      const bool sa = !ta || (!ga.arr && !pa.arr), sb = !tb || (!gb.arr && !pb.arr);
      if (sa && sb) {  // constant over points
        out = {nullptr, (ta ? ga.s * pa.s : 0.0) + (tb ? gb.s * pb.s : 0.0)};
        continue;
      }
      if (!tb && !pa.arr && pa.s == 1.0) {
        out = ga;
        continue;
      }
      if (!ta && !pb.arr && pb.s == 1.0) {
        out = gb;
        continue;
      }
      g.resize(n_);
      if (ta) both(ga, pa, n_, [&](auto&& x, auto&& y) { g = x * y; });
      if (tb) {
        if (ta) both(gb, pb, n_, [&](auto&& x, auto&& y) { g += x * y; });
        else both(gb, pb, n_, [&](auto&& x, auto&& y) { g = x * y; });
      }
      out = {&g, 0.0};
    }
  }

  // x^y. A data-only base uses its prepared logarithm: x^y = exp(y log x), one exp per point.
  void power(std::size_t a, const Arg& A, const Arg& B, bool da, bool db, ArrayXd& v, Arg& pa, Arg& pb) {
    const Op& base = t_.ops[a];
    const bool log_ready = base.data && base.deps == 0;
    if (log_ready) {
      const ArrayXd& lx = p_.log[a];
      one(B, n_, [&](auto&& y) { v = (y * lx).exp(); });
      (void)db;  // its derivative is written directly
      return;
    }
    both(A, B, n_, [&](auto&& x, auto&& y) { v = x.pow(y); });
    if (da) {
      both(A, B, n_, [&](auto&& x, auto&& y) { w_.pa = (y == 0).select(0.0, y * v / x); });
      pa.arr = &w_.pa;
    }
    if (db) {
      one(A, n_, [&](auto&& x) { w_.pb = v * x.log(); });
      pb.arr = &w_.pb;
    }
  }

  void vector_call(const std::string& f, const Arg& A, const Arg& B, bool da, bool db, ArrayXd& v, Arg& pa, Arg& pb) {
    if (f == "min" || f == "max") {
      const bool mn = f == "min";
      both(A, B, n_, [&](auto&& x, auto&& y) {
        if (mn) {
          v = x.min(y);
          w_.pa = (x <= y).template cast<double>();
        } else {
          v = x.max(y);
          w_.pa = (x >= y).template cast<double>();
        }
      });
      w_.pb = 1.0 - w_.pa;
      pa.arr = &w_.pa;
      pb.arr = &w_.pb;
      return;
    }
    (void)db;
    one(A, n_, [&](auto&& x) {
      if (f == "exp") v = x.exp();
      else if (f == "log") v = x.log();
      else if (f == "log2") v = x.log() / M_LN2;
      else if (f == "log10") v = x.log() / M_LN10;
      else if (f == "sqrt") v = x.sqrt();
      else if (f == "abs") v = x.abs();
      else if (f == "floor") v = x.floor();
      else if (f == "ceil") v = x.ceil();
      else if (f == "round") v = x.round();
      else if (f == "gamma") v = x.unaryExpr([](double z) { return gamma_fn(z); });
      else v = x.unaryExpr([](double z) { return Expression::call("zeta", {z}, "zeta"); });
      if (!da) return;
      if (f == "exp") w_.pa = v;
      else if (f == "log") w_.pa = x.inverse();
      else if (f == "log2") w_.pa = (x * M_LN2).inverse();
      else if (f == "log10") w_.pa = (x * M_LN10).inverse();
      else if (f == "sqrt") w_.pa = 0.5 / v;
      else if (f == "abs") w_.pa = x.sign();
      else if (f == "gamma") w_.pa = v * x.unaryExpr([](double z) { return digamma_fn(z); });
      else w_.pa.setZero();  // floor, ceil, round: flat almost everywhere
    });
    pa.arr = &w_.pa;
  }

  const Tape& t_;
  const Prepared& p_;
  Workspace& w_;
  const double* theta_;
  Index n_;
};

std::shared_ptr<const Prepared> prepare(const Tape& t, const std::vector<ArrayXd>& inputs, Index n) {
  if (inputs.size() != t.inputs.size()) {
    const auto list = [](const std::vector<std::string>& names) {
      std::string out;
      for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
      return out;
    };
    throw InputError("law \"" + t.text + "\": needs " + std::to_string(t.inputs.size()) + " input column(s), got " +
                     std::to_string(inputs.size()) + " (taken as data columns: " + list(t.inputs) +
                     "; as parameters: " + list(t.parameters) + ")");
  }
  auto p = std::make_shared<Prepared>();
  p->value.resize(t.ops.size());
  p->log.resize(t.ops.size());
  Workspace w;
  w.size(t.ops.size(), t.parameters.size(), n);
  Evaluator ev(t, *p, w, nullptr, n);
  // Data-only ops depend on no parameter: evaluated once, operands before users.
  for (std::size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.ops[i];
    if (!op.data || op.deps) continue;
    if (op.kind == Op::Input) {
      const ArrayXd& column = inputs[static_cast<std::size_t>(op.index)];
      if (column.size() != n) throw InputError("law \"" + t.text + "\": input columns of different lengths");
      p->value[i] = column;
    } else {
      ev.data_op(i);
      p->value[i] = std::move(w.value[i]);
    }
    if (op.log_used) p->log[i] = p->value[i].log();
  }
  return p;
}

thread_local Workspace tls_workspace;

void predict(const Tape& t, const LawData& d, const double* theta, ArrayXd& lp, ArrayXXd* jac) {
  const Index n = d.size();
  std::shared_ptr<const Prepared> local;
  const Prepared* p = static_cast<const Prepared*>(d.prepared.get());
  if (!p) {
    // Data built for the built-in laws carries only log inputs (u, v).
    std::vector<ArrayXd> raw = d.inputs;
    if (raw.empty() && t.inputs.size() <= 2) {
      raw.push_back(d.u.exp());
      if (t.inputs.size() == 2) raw.push_back(d.v.exp());
    }
    local = prepare(t, raw, n);
    p = local.get();
  }
  Workspace& w = tls_workspace;
  w.size(t.ops.size(), t.parameters.size(), n);
  Evaluator ev(t, *p, w, theta, n);
  ev.run();
  const std::size_t root = t.ops.size() - 1;
  const Arg r = ev.value(root);
  if (r.arr) lp = r.arr->log();
  else lp = ArrayXd::Constant(n, std::log(r.s));
  if (!jac) return;
  jac->resize(n, static_cast<Index>(t.parameters.size()));
  const std::uint64_t deps = t.ops[root].deps;
  for (std::size_t k = 0; k < t.parameters.size(); ++k) {
    auto col = jac->col(static_cast<Index>(k));
    if (!((deps >> k) & 1u)) {
      col.setZero();
      continue;
    }
    const Arg g = ev.grad(root, k);
    both(g, r, n, [&](auto&& x, auto&& y) { col = x / y; });
  }
}

std::string coordinate_name(const std::string& parameter, bool log) { return log ? "log_" + parameter : parameter; }

double parse_number(const std::string& item, const std::string& context) {
  try {
    const double v = Expression(item).eval([](const std::string&) { return std::nullopt; });
    if (!std::isfinite(v)) throw InputError("not finite");
    return v;
  } catch (const std::exception&) {  // InputError, or a math library's own error (gamma at a pole)
    throw InputError(context + ": '" + item + "' is not a finite number");
  }
}

}  // namespace

std::vector<double> default_grid(const Bounds& b) {
  if (b.positive_scale()) return {-2, 0, 3, 6, 10, 15, 20, 25};  // log of a scale
  if (std::isfinite(b.lo) && std::isfinite(b.hi)) {
    std::vector<double> v;
    for (double f : {0.1, 0.3, 0.5, 0.7, 0.9}) v.push_back(b.lo + f * (b.hi - b.lo));
    return v;
  }
  // Unbounded or half-bounded: exponent-like values, within the bounds (or the finite bound alone).
  std::vector<double> v;
  for (double x : {0.1, 0.25, 0.5, 1.0, 2.0})
    if (x >= b.lo && x <= b.hi) v.push_back(x);
  if (v.empty()) v.push_back(std::isfinite(b.lo) ? b.lo : b.hi);
  return v;
}

ScalingLaw expression_law(const std::string& text, const std::vector<std::string>& data_names,
                          const ExpressionLawOptions& options) {
  auto tape = std::make_shared<Tape>();
  tape->text = text;
  const Expression e(text);
  Compiler(*tape, data_names).compile(e.root());
  // Inputs in the order of `data_names` (N before D, whatever the expression's order).
  {
    std::vector<std::string> ordered;
    for (const auto& d : data_names)
      if (std::find(tape->inputs.begin(), tape->inputs.end(), d) != tape->inputs.end() &&
          std::find(ordered.begin(), ordered.end(), d) == ordered.end())
        ordered.push_back(d);
    for (auto& op : tape->ops)
      if (op.kind == Op::Input)
        op.index = static_cast<int>(std::find(ordered.begin(), ordered.end(), tape->inputs[static_cast<std::size_t>(op.index)]) -
                                    ordered.begin());
    tape->inputs = ordered;
  }
  if (tape->parameters.empty())
    throw InputError("law \"" + text + "\": no parameters (every variable is a data column)");
  if (tape->inputs.empty()) throw InputError("law \"" + text + "\": no inputs (no variable names a data column)");
  for (const auto& [name, b] : options.bounds) {
    if (std::find(tape->parameters.begin(), tape->parameters.end(), name) == tape->parameters.end())
      throw InputError("bounds: '" + name + "' is not a parameter of \"" + text + "\"");
    if (!(b.lo <= b.hi)) throw InputError("bounds: " + name + " has its lower bound above its upper bound");
  }
  ScalingLaw law;
  law.name = options.name;
  law.formula = text;
  law.expression = text;
  law.inputs = tape->inputs;
  law.parameters = tape->parameters;
  const std::size_t K = tape->parameters.size();
  law.lower.assign(K, -kInf);
  law.upper.assign(K, kInf);
  for (std::size_t k = 0; k < K; ++k) {
    const std::string& p = tape->parameters[k];
    const auto bi = options.bounds.find(p);
    const Bounds b = bi == options.bounds.end() ? Bounds{} : bi->second;
    const bool lg = b.positive_scale();
    tape->log_coordinate.push_back(lg);
    law.coordinates.push_back(coordinate_name(p, lg));
    law.coordinate_parameter.push_back(p);
    law.coordinate_log.push_back(lg);
    law.lower[k] = lg ? (b.lo > 0 ? std::log(b.lo) : -kInf) : b.lo;
    law.upper[k] = lg ? kInf : b.hi;
    std::vector<double> g = default_grid(b);
    const auto gi = options.grid.find(p);
    const auto gl = options.grid.find("log(" + p + ")");
    if (gi != options.grid.end() && gl != options.grid.end())
      throw InputError("grid: give either " + p + " or log(" + p + "), not both");
    if (gi != options.grid.end()) {
      g.clear();
      for (double v : gi->second) {
        if (lg && !(v > 0))
          throw InputError("grid: " + p + " is fitted as its logarithm (bounds " + p + "=0:); its initial values must be positive");
        g.push_back(lg ? std::log(v) : v);
      }
    } else if (gl != options.grid.end()) {
      g.clear();
      for (double v : gl->second) g.push_back(lg ? v : std::exp(v));
    }
    law.grid.push_back(g);
  }
  for (const auto& [name, values] : options.grid) {
    const std::string bare = name.rfind("log(", 0) == 0 && name.back() == ')' ? name.substr(4, name.size() - 5) : name;
    if (std::find(tape->parameters.begin(), tape->parameters.end(), bare) == tape->parameters.end())
      throw InputError("grid: '" + name + "' is not a parameter of \"" + text + "\"");
    if (values.empty()) throw InputError("grid: no values for '" + name + "'");
  }
  law.predict = [tape](const LawData& d, const double* theta, ArrayXd& lp, ArrayXXd* jac) {
    predict(*tape, d, theta, lp, jac);
  };
  law.report = [tape](const double* theta, double* values) {
    for (std::size_t k = 0; k < tape->parameters.size(); ++k)
      values[k] = tape->log_coordinate[k] ? std::exp(theta[k]) : theta[k];
  };
  law.prepare = [tape](LawData& d) { d.prepared = prepare(*tape, d.inputs, d.size()); };
  law.has_frontier = false;
  law.default_delta = kInf;
  return law;
}

std::map<std::string, Bounds> parse_bounds(const std::string& text) {
  std::map<std::string, Bounds> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    const auto colon = item.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || eq == 0 || colon == std::string::npos)
      throw InputError("--bounds '" + item + "': expected NAME=LOW:HIGH (either side may be empty)");
    std::string name = item.substr(0, eq);
    name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
    Bounds b;
    const std::string lo = item.substr(eq + 1, colon - eq - 1), hi = item.substr(colon + 1);
    auto blank = [](const std::string& s) { return s.find_first_not_of(' ') == std::string::npos; };
    if (!blank(lo)) b.lo = parse_number(lo, "--bounds " + name);
    if (!blank(hi)) b.hi = parse_number(hi, "--bounds " + name);
    if (!(b.lo <= b.hi)) throw InputError("--bounds " + name + ": the lower bound is above the upper bound");
    if (out.count(name)) throw InputError("--bounds: " + name + " is bounded twice");
    out[name] = b;
  }
  if (out.empty()) throw InputError("--bounds: nothing given");
  return out;
}

std::pair<std::string, std::vector<double>> parse_grid_option(const std::string& text, const std::string& option,
                                                             double max_values, const std::string& raise_with) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(option + " '" + text + "': expected NAME=v1,v2,... (or NAME=first:step:last)");
  const std::string name = text.substr(0, eq);
  const std::string context = option + " " + name;
  std::vector<double> values;
  std::stringstream ss(text.substr(eq + 1));
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto c1 = item.find(':');
    if (c1 == std::string::npos) {
      values.push_back(parse_number(item, context));
      continue;
    }
    const auto c2 = item.find(':', c1 + 1);
    if (c2 == std::string::npos) throw InputError(context + ": a range is first:step:last, got '" + item + "'");
    const double first = parse_number(item.substr(0, c1), context);
    const double step = parse_number(item.substr(c1 + 1, c2 - c1 - 1), context);
    const double last = parse_number(item.substr(c2 + 1), context);
    if (!(step > 0) || last < first)
      throw InputError(context + ": range '" + item + "' needs a positive step and last >= first");
    // Counted before anything is made: a huge count (or an infinite one, when the span overflows)
    // is refused here rather than filling memory.
    const double count = std::floor((last - first) / step + 1e-9) + 1;
    const std::string what = context + " range '" + item + "'";
    if (!raise_with.empty()) check_limit(count, max_values, what, "values", raise_with);
    else if (!(count <= max_values))
      throw InputError(fmt::format("{} has {:.4g} values, more than {:g}; use a larger step", what, count, max_values));
    if (!(count < 1e15)) throw InputError(fmt::format("{} has {:.4g} values; use a larger step", what, count));
    const auto n = static_cast<std::size_t>(count);
    values.reserve(values.size() + n);
    for (std::size_t i = 0; i < n; ++i) {
      // first + i step rather than repeated addition: no drift, and a step below a double's
      // resolution at `first` shows as a value that does not grow.
      const double v = first + static_cast<double>(i) * step;
      if (i > 0 && !(v > values.back()))
        throw InputError(fmt::format("{}: the step {:g} does not change {:.17g} (it is below a double's resolution there)",
                                     what, step, values.back()));
      values.push_back(v);
    }
  }
  return {name, values};
}

}  // namespace scalinglab::fit
