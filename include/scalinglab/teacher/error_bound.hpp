#pragma once
// The error bounds of Jeon & Van Roy, "Information-Theoretic Foundations for Neural Scaling Laws"
// (Section 4.3-4.4, Appendix A) for the width-n constrained predictor of an infinite-width ReLU
// teacher with input dimension d and Dirichlet-process scale K, after T samples:
//   Theorem 4.1   L <= K ln(1 + n/K) (ln(2n) + d ln(3/eps)) / T   (estimation)
//                      + 3K (1 + d eps^2) / n                       (misspecification)
//   Corollary 4.2 L <= d K ln(1 + n/K) (ln(e 36 T K) + (2/d) ln(2n)) / (2T) + 3K/n   (n >= 3, K >= 2)
//   Theorem 4.3   n* minimising Corollary 4.2 under d n T = C satisfies d n* = Theta~(sqrt(C)),
//                 with sqrt(3C)/d >= n* (Appendix A.2; only when n* >= K). The paper's lower bracket, the root of
//                 C = d n^2 ln(2n) ln(36 K C), does not bound the statement's n* for larger d (the
//                 first-order condition has d^2 terms); we derive a valid one (frontier_rhs_upper).
// eps is the radius of the cover of the sphere that quantises the weights; the bound of Theorem 4.1
// uses covering numbers (3/eps)^d, valid for eps <= 1, so the infimum over eps is taken on (0, 1].
namespace scalinglab::teacher {

struct BoundTerms {
  double estimation = 0, misspecification = 0;
  double total() const { return estimation + misspecification; }
};

BoundTerms theorem41(double d, double K, double n, double T, double eps);

struct MinimisedBound {
  double value = 0;  // inf over eps in (0, 1] of Theorem 4.1
  double eps = 0;    // its minimiser
};
// The stationary point eps^2 = n ln(1 + n/K) / (6T) clipped to 1; `numerical` checks it by Brent's
// method in log eps (tests compare the two).
MinimisedBound theorem41_minimised(double d, double K, double n, double T, bool numerical = false);

// `power` replaces the misspecification term 3K/n by 3K/n^power: 1 is the paper's; other values are
// counterfactuals (the exponent the square-root law of Theorem 4.3 follows from).
double corollary42(double d, double K, double n, double T, double power = 1);

struct ComputeOptimalWidth {
  double n = 0, T = 0;         // n* and T* = C / (d n*)
  double bound = 0;            // Corollary 4.2 at (n*, T*)
  double n_upper = 0;          // a valid upper bracket: root of C = frontier_rhs_lower(n), in [3, C/d]
  double n_upper_paper = 0;    // Appendix A.2's: sqrt(3C) / d (not a bound when n* < K, small budgets)
  double n_lower = 0;          // a valid lower bracket: root of C = frontier_rhs_upper(n), in [3, C/d]
  double n_lower_paper = 0;    // Appendix A.2's: root of C = d n^2 ln(2n) ln(36 K C), in [3, C/d]
};
// The first-order condition of Corollary 4.2 along T = C/(d n) is C = frontier_rhs(n):
//   frontier_rhs = (d n^2/6) [g (u + n/(K+n)) + (2 - d) u], u = ln(1 + n/K), g = d(1 + ln(36KC/(nd))) + 2 ln(2n);
// frontier_rhs_upper = (d n^2/6)(d (1 + ln(36 K C)) + 2 ln(2n))(1 + ln(1 + n/K)) bounds it above for
// d >= 2 and n d >= 1, and increases in n, so its root is a lower bound of n*.
double frontier_rhs(double d, double K, double n, double C);
double frontier_rhs_upper(double d, double K, double n, double C);
// d^2 n^3 (2 ln(36K) + 1) / (6 (K + n)) bounds frontier_rhs below where T = C/(n d) >= 1 (K >= 1/36),
// and increases in n, so its root is an upper bound of n*.
double frontier_rhs_lower(double d, double K, double n);
// n real in [3, C / d]; Corollary 4.2 along T = C / (d n), minimised by golden-section search in
// log n after a scan.
// Budgets with C/d <= 3 (no width n >= 3 with T >= 1) throw std::invalid_argument. With power != 1
// the optimum is that of the altered bound; the brackets are still those derived for power 1.
ComputeOptimalWidth compute_optimal_width(double d, double K, double C, double power = 1);

// The local slope d log n* / d log T* of the compute-optimal frontier at C (Figure 1 right: it tends
// to 1 as C grows), by central differences at C e^{-h} and C e^{h}.
double frontier_local_slope(double d, double K, double C, double h = 0.05, double power = 1);

}  // namespace scalinglab::teacher
