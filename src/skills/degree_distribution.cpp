#include "scalinglab/skills/degree_distribution.hpp"

#include <cmath>
#include <fmt/format.h>
#include <numeric>
#include <stdexcept>

namespace scalinglab::skills {

DegreeDistribution DegreeDistribution::regular(double d) {
  if (!(d >= 1)) throw std::invalid_argument("regular degree must be >= 1");
  DegreeDistribution r;
  r.kind_ = Kind::regular;
  r.a_ = d;
  return r;
}

DegreeDistribution DegreeDistribution::poisson(double mean) {
  if (!(mean > 0)) throw std::invalid_argument("Poisson mean degree must be > 0");
  DegreeDistribution r;
  r.kind_ = Kind::poisson;
  r.a_ = mean;
  return r;
}

DegreeDistribution DegreeDistribution::binomial(double n, double p) {
  if (!(n >= 1) || !(p > 0 && p <= 1)) throw std::invalid_argument("binomial degrees need n >= 1 and 0 < p <= 1");
  DegreeDistribution r;
  r.kind_ = Kind::binomial;
  r.a_ = n;
  r.b_ = p;
  return r;
}

DegreeDistribution DegreeDistribution::polynomial(std::vector<double> c) {
  double total = 0;
  for (double v : c) {
    if (!(v >= 0)) throw std::invalid_argument("edge-perspective coefficients must be >= 0");
    total += v;
  }
  if (!(total > 0)) throw std::invalid_argument("edge-perspective coefficients must not all be 0");
  DegreeDistribution r;
  r.kind_ = Kind::polynomial;
  for (double& v : c) v /= total;
  r.lambda_ = std::move(c);
  // L_i = (lambda_i / i) / sum_j (lambda_j / j).
  r.node_.assign(r.lambda_.size() + 1, 0.0);
  double norm = 0;
  for (std::size_t i = 0; i < r.lambda_.size(); ++i) norm += r.lambda_[i] / double(i + 1);
  for (std::size_t i = 0; i < r.lambda_.size(); ++i) r.node_[i + 1] = r.lambda_[i] / double(i + 1) / norm;
  return r;
}

namespace {
// (1 - p + p x)^k computed as exp(k log1p(p (x - 1))): accurate for large k and small p.
double binomial_power(double p, double x, double k) {
  if (k == 0) return 1.0;
  const double base = p * (x - 1);
  if (base <= -1) return 0.0;  // p = 1, x = 0
  return std::exp(k * std::log1p(base));
}
double horner(const std::vector<double>& c, double x) {
  double v = 0;
  for (std::size_t i = c.size(); i-- > 0;) v = v * x + c[i];
  return v;
}
}  // namespace

double DegreeDistribution::edge(double x) const {
  switch (kind_) {
    case Kind::regular: return std::pow(x, a_ - 1);
    case Kind::poisson: return std::exp(a_ * (x - 1));
    case Kind::binomial: return binomial_power(b_, x, a_ - 1);
    case Kind::polynomial: return horner(lambda_, x);
  }
  return 0;
}

double DegreeDistribution::edge_prime(double x) const {
  switch (kind_) {
    case Kind::regular: return a_ > 1 ? (a_ - 1) * std::pow(x, a_ - 2) : 0.0;
    case Kind::poisson: return a_ * std::exp(a_ * (x - 1));
    case Kind::binomial: return a_ > 1 ? (a_ - 1) * b_ * binomial_power(b_, x, a_ - 2) : 0.0;
    case Kind::polynomial: {
      double v = 0;
      for (std::size_t i = lambda_.size(); i-- > 1;) v = v * x + double(i) * lambda_[i];
      return v;
    }
  }
  return 0;
}

double DegreeDistribution::edge_complement(double x) const {
  switch (kind_) {
    case Kind::regular: return -std::expm1((a_ - 1) * std::log1p(-x));
    case Kind::poisson: return -std::expm1(-a_ * x);
    case Kind::binomial: return b_ * x >= 1 ? 1.0 : -std::expm1((a_ - 1) * std::log1p(-b_ * x));
    case Kind::polynomial: return 1 - edge(1 - x);
  }
  return 0;
}

double DegreeDistribution::node(double x) const {
  switch (kind_) {
    case Kind::regular: return std::pow(x, a_);
    case Kind::poisson: return std::exp(a_ * (x - 1));
    case Kind::binomial: return binomial_power(b_, x, a_);
    case Kind::polynomial: return horner(node_, x);
  }
  return 0;
}

double DegreeDistribution::mean_degree() const {
  switch (kind_) {
    case Kind::regular: return a_;
    case Kind::poisson: return a_;
    case Kind::binomial: return a_ * b_;
    case Kind::polynomial: {
      double norm = 0;
      for (std::size_t i = 0; i < lambda_.size(); ++i) norm += lambda_[i] / double(i + 1);
      return 1.0 / norm;
    }
  }
  return 0;
}

std::string DegreeDistribution::describe() const {
  switch (kind_) {
    case Kind::regular: return fmt::format("regular({:g})", a_);
    case Kind::poisson: return fmt::format("poisson({:g})", a_);
    case Kind::binomial: return fmt::format("binomial(n={:g}, p={:g})", a_, b_);
    case Kind::polynomial: {
      std::string s = "lambda(";
      for (std::size_t i = 0; i < lambda_.size(); ++i) s += fmt::format("{}{:g}", i ? "," : "", lambda_[i]);
      return s + ")";
    }
  }
  return "?";
}

}  // namespace scalinglab::skills
