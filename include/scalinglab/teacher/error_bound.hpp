#pragma once
// The error bounds of Jeon & Van Roy, "Information-Theoretic Foundations for Neural Scaling Laws"
// (Section 4.3-4.4, Appendix A) for the width-n constrained predictor of an infinite-width ReLU
// teacher with input dimension d and Dirichlet-process scale K, after T samples:
//   Theorem 4.1   L <= K ln(1 + n/K) (ln(2n) + d ln(3/eps)) / T   (estimation)
//                      + 3K (1 + d eps^2) / n                       (misspecification)
//   Corollary 4.2 L <= d K ln(1 + n/K) (ln(e 36 T K) + (2/d) ln(2n)) / (2T) + 3K/n   (n >= 3, K >= 2)
//   Theorem 4.3   n* minimising Corollary 4.2 under d n T = C satisfies d n* = Theta~(sqrt(C)),
//                 with sqrt(3C)/d >= n* >= the root of C = d n^2 ln(2n) ln(36 K C) (Appendix A.2).
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

double corollary42(double d, double K, double n, double T);

struct ComputeOptimalWidth {
  double n = 0, T = 0;         // n* and T* = C / (d n*)
  double bound = 0;            // Corollary 4.2 at (n*, T*)
  double n_upper = 0;          // sqrt(3C) / d
  double n_lower = 0;          // root of C = d n^2 ln(2n) ln(36 K C)
};
// n real in [3, C / d]; Corollary 4.2 along T = C / (d n), minimised by golden-section search in
// log n after a scan.
ComputeOptimalWidth compute_optimal_width(double d, double K, double C);

}  // namespace scalinglab::teacher
