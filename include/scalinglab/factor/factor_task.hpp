#pragma once
// A discrete conditional distribution p(y|x) with a hidden factorial structure (Arnal et al. 2024,
// "Scaling Laws with Hidden Structure", Sections 2.1, 3 and 4.1):
//   X = X_1 x ... x X_k (|X_i| = p_i), Y = Y_1 x ... x Y_l (|Y_j| = q_j),
//   p(y|x) = prod_j p(y_j | pa_j),  pa_j = (x_i)_{i in I_j},           (FH)
// p(x) uniform, p(y_j | pa_j) ~ Dirichlet(alpha, ..., alpha) for every parent configuration.
// Parents: either |I_j| fixed (P3; a uniform subset of [k] per output factor) or each edge (i, j)
// present with probability beta (P3').
//
// Index convention (mixed radix, first factor fastest): x = x_1 + p_1 (x_2 + p_2 (x_3 + ...)), and
// likewise y and a parent configuration c_j = sum over i in I_j (ascending) with the same rule.
#include <cstdint>
#include <string>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::factor {

// "2x12" (twelve factors of size 2), "2,2,3,5", or a mix "2x3,5": the factor sizes, each >= 1.
// Throws std::invalid_argument with a message for a malformed list.
std::vector<uint32_t> parse_factors(const std::string& text);

struct FactorSpec {
  std::vector<uint32_t> input;   // (p_i), k factors
  std::vector<uint32_t> output;  // (q_j), l factors
  int parents = 2;               // |I_j| under (P3), clamped to k
  double beta = -1;              // (P3') when in [0, 1]: edge probability; `parents` is then unused
  double alpha = 0.1;            // Dirichlet concentration (P4)
};

// The complexities of Section 3 for a parent graph: chi (SC) = sum_j q_j |pa_j|,
// chi_bar (AC) = sum_j min(|pa_j|, q_j), with |pa_j| = prod_{i in I_j} p_i (1 for no parent).
double statistical_complexity(const std::vector<uint32_t>& input, const std::vector<uint32_t>& output,
                              const std::vector<std::vector<uint32_t>>& parents);
double approximation_complexity(const std::vector<uint32_t>& input, const std::vector<uint32_t>& output,
                                const std::vector<std::vector<uint32_t>>& parents);

// Expectations of chi and chi_bar over the random parent graph of `spec` (exact: enumerates the
// subsets of [k], so k <= 24).
struct ExpectedComplexity {
  double chi = 0, chi_bar = 0;
};
ExpectedComplexity expected_complexity(const FactorSpec& spec);

// Draws the parent sets I_j (ascending indices).
std::vector<std::vector<uint32_t>> draw_parents(const FactorSpec& spec, Stream& s);

// A Dirichlet(alpha, ..., alpha) vector of size q, drawn in log space (Gamma(alpha + 1) U^(1/alpha)),
// so that tiny alpha (1e-3) does not underflow to a zero vector.
void draw_dirichlet(double alpha, std::size_t q, Stream& s, double* out);

class FactorTask {
 public:
  FactorTask(const FactorSpec& spec, Stream& s);  // draws the parents, then the conditionals
  // Builds a task from given parents and conditional tables (tests, hand-made cases).
  FactorTask(std::vector<uint32_t> input, std::vector<uint32_t> output, std::vector<std::vector<uint32_t>> parents,
             std::vector<std::vector<double>> conditionals);

  std::size_t N() const { return N_; }
  std::size_t M() const { return M_; }
  const std::vector<uint32_t>& input() const { return input_; }
  const std::vector<uint32_t>& output() const { return output_; }
  const std::vector<std::vector<uint32_t>>& parents() const { return parents_; }
  // conditional(j): |pa_j| x q_j row-major, row c = p(y_j | pa_j = c).
  const std::vector<double>& conditional(std::size_t j) const { return cond_[j]; }

  double chi() const;
  double chi_bar() const;
  // The rank of Lambda = (log p(y|x))_{y,x} up to a column-wise constant: min_c rank(Lambda - 1 c^T),
  // which is the rank of Lambda with every column centred over y. It is the least embedding
  // dimension with which logits u_y^T F(e_x) can equal log p(y|x) up to the softmax's normalisation
  // (Section 3.1; chi_bar is an upper bound). Computed exactly on the factors: column x of the
  // centred Lambda is sum_j f_j(y_j) with f_j = log p(. | pa_j(x)) centred over Y_j, and centred
  // functions of different output factors are linearly independent, so the rank is that of the
  // Q x N matrix stacking these centred factor columns (only distinct parent tuples kept). Numerical
  // rank: singular values above sigma_max x max(rows, cols) x machine epsilon (numpy's convention).
  std::size_t rank_logp() const;
  uint32_t input_coordinate(std::size_t x, std::size_t i) const;    // x_i
  uint32_t output_coordinate(std::size_t y, std::size_t j) const;   // y_j
  uint32_t parent_configuration(std::size_t x, std::size_t j) const;  // c_j(x) in [0, |pa_j|)

  double probability(std::size_t x, std::size_t y) const;  // p(y|x), by the product (FH)
  // The full table p(y|x), N x M row-major (rows `first` .. `first + rows - 1` when given), row() by row().
  void table(float* out) const;
  void table_rows(std::size_t first, std::size_t rows, float* out) const;
  // One row p(.|x) in float, in place (no allocation): the training loop's target generator.
  void row(std::size_t x, float* out) const;
  // H(Y | X = x) = sum_j H(Y_j | pa_j(x)) in nats.
  double conditional_entropy(std::size_t x) const;
  // y ~ p(.|x), factor by factor.
  uint32_t sample_output(std::size_t x, Stream& s) const;

 private:
  void index();
  std::vector<uint32_t> input_, output_;
  std::vector<std::vector<uint32_t>> parents_;
  std::vector<std::vector<double>> cond_;
  std::vector<std::size_t> in_stride_, out_stride_;
  std::vector<std::vector<double>> entropy_;  // per j, per configuration
  std::size_t N_ = 1, M_ = 1;
};

}  // namespace scalinglab::factor
