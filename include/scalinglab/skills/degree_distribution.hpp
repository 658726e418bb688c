#pragma once
// Degree distributions of one side of a bipartite LDPC ensemble (Richardson & Urbanke, Modern
// Coding Theory, Sec. 3.3), from the edge perspective lambda(x) = sum_i lambda_i x^(i-1) (lambda_i:
// the fraction of edges attached to nodes of degree i) and from the node perspective
// L(x) = sum_i L_i x^i (L_i: the fraction of nodes of degree i, degree 0 included), with the mean
// node degree L'(1).
#include <string>
#include <vector>

namespace scalinglab::skills {

class DegreeDistribution {
 public:
  // Every node of degree d: lambda(x) = x^(d-1), L(x) = x^d.
  static DegreeDistribution regular(double d);
  // Poisson(mean) node degrees: lambda(x) = L(x) = exp(mean (x - 1)).
  static DegreeDistribution poisson(double mean);
  // Binomial(n, p) node degrees (n may be fractional, e.g. R / epsilon): L(x) = (1 - p + p x)^n,
  // lambda(x) = (1 - p + p x)^(n - 1). The paper's concepts and texts (eqs. 17-22).
  static DegreeDistribution binomial(double n, double p);
  // From edge-perspective coefficients: edge_coefficients[i] = lambda_(i+1), the fraction of edges
  // on nodes of degree i + 1 (normalised here; at least one must be positive).
  static DegreeDistribution polynomial(std::vector<double> edge_coefficients);

  double edge(double x) const;        // lambda(x)
  double edge_prime(double x) const;  // lambda'(x)
  double edge_complement(double x) const;  // 1 - lambda(1 - x), accurate for small x
  double node(double x) const;        // L(x)
  double mean_degree() const;         // L'(1)
  std::string describe() const;       // "regular(3)", "binomial(n=200, p=0.03)", ...

 private:
  enum class Kind { regular, poisson, binomial, polynomial } kind_ = Kind::regular;
  double a_ = 0, b_ = 0;          // regular: d; poisson: mean; binomial: n, p
  std::vector<double> lambda_;    // polynomial: normalised edge coefficients
  std::vector<double> node_;      // polynomial: node coefficients L_i, i = degree
};

}  // namespace scalinglab::skills
