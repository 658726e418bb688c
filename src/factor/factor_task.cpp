#include "scalinglab/factor/factor_task.hpp"

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/lapack.hpp"

#include <Eigen/Core>
#include <limits>
#include <map>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace scalinglab::factor {

std::vector<uint32_t> parse_factors(const std::string& text) {
  std::vector<uint32_t> sizes;
  std::size_t pos = 0;
  auto fail = [&](const std::string& why) {
    throw InputError("bad factor list '" + text + "': " + why + " (expected e.g. 2x12, 2,2,3,5 or 2x3,5)");
  };
  if (text.empty()) fail("empty");
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    const std::size_t x = item.find('x');
    auto number = [&](const std::string& s) -> uint64_t {
      std::string digits = s;
      std::erase(digits, ' ');
      uint64_t v = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
        fail("'" + item + "' is not a size or AxK (sizes are integers below 2^64)");
      return v;
    };
    const uint64_t size = number(item.substr(0, x));
    const uint64_t count = x == std::string::npos ? 1 : number(item.substr(x + 1));
    if (size < 1) fail("factor sizes must be >= 1");
    if (count < 1 || count > 64) fail("a repeat count must be in [1, 64]");
    for (uint64_t c = 0; c < count; ++c) sizes.push_back(static_cast<uint32_t>(std::min<uint64_t>(size, 1u << 30)));
    if (end == text.size()) break;
    pos = end + 1;
  }
  double total = 1;
  for (uint32_t s : sizes) total *= s;
  if (total > 1 << 24) fail("the product of the sizes exceeds 2^24");
  return sizes;
}

namespace {

double configurations(const std::vector<uint32_t>& input, const std::vector<uint32_t>& parents) {
  double n = 1;
  for (uint32_t i : parents) n *= input.at(i);
  return n;
}

}  // namespace

double statistical_complexity(const std::vector<uint32_t>& input, const std::vector<uint32_t>& output,
                              const std::vector<std::vector<uint32_t>>& parents) {
  double chi = 0;
  for (std::size_t j = 0; j < output.size(); ++j) chi += output[j] * configurations(input, parents.at(j));
  return chi;
}

double approximation_complexity(const std::vector<uint32_t>& input, const std::vector<uint32_t>& output,
                                const std::vector<std::vector<uint32_t>>& parents) {
  double chi_bar = 0;
  for (std::size_t j = 0; j < output.size(); ++j)
    chi_bar += std::min(configurations(input, parents.at(j)), static_cast<double>(output[j]));
  return chi_bar;
}

ExpectedComplexity expected_complexity(const FactorSpec& spec) {
  const std::size_t k = spec.input.size();
  if (k > 24) throw std::invalid_argument("expected complexities enumerate subsets: at most 24 input factors");
  const bool random_edges = spec.beta >= 0;
  const int m = std::min<int>(spec.parents, static_cast<int>(k));
  // Each subset S of [k] is I_j with probability beta^|S| (1-beta)^(k-|S|), or uniformly among the
  // subsets of size m (sums first, then one division, so that deterministic cases come out exact).
  ExpectedComplexity e;
  double subsets_of_size_m = 0;
  for (uint64_t S = 0; S < (uint64_t{1} << k); ++S) {
    const int size = __builtin_popcountll(S);
    double weight = 1;
    if (random_edges)
      weight = std::pow(spec.beta, size) * std::pow(1 - spec.beta, static_cast<double>(k) - size);
    else if (size != m)
      continue;
    subsets_of_size_m += 1;
    double pa = 1;
    for (std::size_t i = 0; i < k; ++i)
      if (S >> i & 1) pa *= spec.input[i];
    for (uint32_t q : spec.output) {
      e.chi += weight * q * pa;
      e.chi_bar += weight * std::min(pa, static_cast<double>(q));
    }
  }
  if (!random_edges) e.chi /= subsets_of_size_m, e.chi_bar /= subsets_of_size_m;
  return e;
}

std::vector<std::vector<uint32_t>> draw_parents(const FactorSpec& spec, Stream& s) {
  const auto k = static_cast<uint32_t>(spec.input.size());
  std::vector<std::vector<uint32_t>> parents(spec.output.size());
  for (auto& I : parents) {
    if (spec.beta >= 0) {
      for (uint32_t i = 0; i < k; ++i)
        if (s.uniform() < spec.beta) I.push_back(i);  // Z_ij <= beta, Z_ij ~ U[0, 1]
    } else {
      // A uniform subset of size m: the first m of a partial Fisher-Yates shuffle.
      std::vector<uint32_t> perm(k);
      std::iota(perm.begin(), perm.end(), 0u);
      const auto m = static_cast<uint32_t>(std::clamp(spec.parents, 0, static_cast<int>(k)));
      for (uint32_t t = 0; t < m; ++t) std::swap(perm[t], perm[t + s.below(k - t)]);
      I.assign(perm.begin(), perm.begin() + m);
      std::sort(I.begin(), I.end());
    }
  }
  return parents;
}

void draw_dirichlet(double alpha, std::size_t q, Stream& s, double* out) {
  // log Gamma(alpha) variates: Marsaglia-Tsang for shape a = alpha + 1 >= 1, then + log(U)/alpha.
  const double a = alpha + 1, dd = a - 1.0 / 3, c = 1 / std::sqrt(9 * dd);
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t < q; ++t) {
    double v;
    for (;;) {
      const double z = s.normal();
      v = 1 + c * z;
      if (v <= 0) continue;
      v = v * v * v;
      const double u = s.uniform_pos();
      if (std::log(u) < 0.5 * z * z + dd - dd * v + dd * std::log(v)) break;
    }
    out[t] = std::log(dd * v) + std::log(s.uniform_pos()) / alpha;
    top = std::max(top, out[t]);
  }
  double sum = 0;
  for (std::size_t t = 0; t < q; ++t) sum += (out[t] = std::exp(out[t] - top));
  for (std::size_t t = 0; t < q; ++t) out[t] /= sum;
}

FactorTask::FactorTask(const FactorSpec& spec, Stream& s) : input_(spec.input), output_(spec.output) {
  if (input_.empty() || output_.empty()) throw std::invalid_argument("need at least one input and one output factor");
  if (!(spec.alpha > 0)) throw std::invalid_argument("alpha must be > 0");
  Stream graph = s.substream(0), tables = s.substream(1);
  parents_ = draw_parents(spec, graph);
  cond_.resize(output_.size());
  for (std::size_t j = 0; j < output_.size(); ++j) {
    const auto configs = static_cast<std::size_t>(configurations(input_, parents_[j]));
    cond_[j].resize(configs * output_[j]);
    for (std::size_t c = 0; c < configs; ++c) draw_dirichlet(spec.alpha, output_[j], tables, &cond_[j][c * output_[j]]);
  }
  index();
}

FactorTask::FactorTask(std::vector<uint32_t> input, std::vector<uint32_t> output, std::vector<std::vector<uint32_t>> parents,
                       std::vector<std::vector<double>> conditionals)
    : input_(std::move(input)), output_(std::move(output)), parents_(std::move(parents)), cond_(std::move(conditionals)) {
  if (parents_.size() != output_.size() || cond_.size() != output_.size())
    throw std::invalid_argument("one parent set and one conditional table per output factor");
  for (std::size_t j = 0; j < output_.size(); ++j) {
    for (uint32_t i : parents_[j])
      if (i >= input_.size()) throw std::invalid_argument("parent index out of range");
    if (cond_[j].size() != static_cast<std::size_t>(configurations(input_, parents_[j])) * output_[j])
      throw std::invalid_argument("conditional table " + std::to_string(j) + " has the wrong size");
  }
  index();
}

void FactorTask::index() {
  N_ = 1, M_ = 1;
  for (uint32_t p : input_) in_stride_.push_back(N_), N_ *= p;
  for (uint32_t q : output_) out_stride_.push_back(M_), M_ *= q;
  entropy_.resize(output_.size());
  for (std::size_t j = 0; j < output_.size(); ++j) {
    const std::size_t q = output_[j], configs = cond_[j].size() / q;
    entropy_[j].assign(configs, 0.0);
    for (std::size_t c = 0; c < configs; ++c)
      for (std::size_t t = 0; t < q; ++t) {
        const double p = cond_[j][c * q + t];
        if (p > 0) entropy_[j][c] -= p * std::log(p);
      }
  }
}

double FactorTask::chi() const { return statistical_complexity(input_, output_, parents_); }
double FactorTask::chi_bar() const { return approximation_complexity(input_, output_, parents_); }

std::size_t FactorTask::rank_logp() const {
  const std::size_t l = output_.size();
  // Centred log-conditionals per output factor and parent configuration.
  std::vector<std::vector<double>> centred(l);
  std::size_t Q = 0;
  for (std::size_t j = 0; j < l; ++j) {
    const std::size_t q = output_[j], configs = cond_[j].size() / q;
    centred[j].resize(cond_[j].size());
    for (std::size_t c = 0; c < configs; ++c) {
      double mean = 0;
      for (std::size_t t = 0; t < q; ++t) {
        const double v = std::log(std::max(cond_[j][c * q + t], std::numeric_limits<double>::min()));
        centred[j][c * q + t] = v, mean += v;
      }
      mean /= static_cast<double>(q);
      for (std::size_t t = 0; t < q; ++t) centred[j][c * q + t] -= mean;
    }
    Q += q;
  }
  // Distinct tuples of parent configurations (c_1(x), ..., c_l(x)) over the inputs.
  std::map<std::vector<uint32_t>, int> tuples;
  std::vector<uint32_t> key(l);
  for (std::size_t x = 0; x < N_; ++x) {
    for (std::size_t j = 0; j < l; ++j) key[j] = parent_configuration(x, j);
    tuples.emplace(key, 0);
  }
  Eigen::MatrixXd K(static_cast<Eigen::Index>(tuples.size()), static_cast<Eigen::Index>(Q));
  Eigen::Index row = 0;
  for (const auto& [t, unused] : tuples) {
    Eigen::Index col = 0;
    for (std::size_t j = 0; j < l; ++j)
      for (std::size_t y = 0; y < output_[j]; ++y) K(row, col++) = centred[j][t[j] * output_[j] + y];
    ++row;
  }
  const std::vector<double> s = singular_values(K);  // LAPACK: Eigen's BDCSVD took 30 s to compile
  if (s.empty() || s[0] == 0) return 0;
  const double tol = s[0] * static_cast<double>(std::max(K.rows(), K.cols())) * std::numeric_limits<double>::epsilon();
  std::size_t r = 0;
  for (const double v : s) r += v > tol;
  return r;
}

uint32_t FactorTask::input_coordinate(std::size_t x, std::size_t i) const {
  return static_cast<uint32_t>(x / in_stride_[i] % input_[i]);
}
uint32_t FactorTask::output_coordinate(std::size_t y, std::size_t j) const {
  return static_cast<uint32_t>(y / out_stride_[j] % output_[j]);
}
uint32_t FactorTask::parent_configuration(std::size_t x, std::size_t j) const {
  uint32_t c = 0, stride = 1;
  for (uint32_t i : parents_[j]) c += stride * input_coordinate(x, i), stride *= input_[i];
  return c;
}

double FactorTask::probability(std::size_t x, std::size_t y) const {
  double p = 1;
  for (std::size_t j = 0; j < output_.size(); ++j)
    p *= cond_[j][parent_configuration(x, j) * output_[j] + output_coordinate(y, j)];
  return p;
}

void FactorTask::table(float* out) const { table_rows(0, N_, out); }

void FactorTask::table_rows(std::size_t first, std::size_t rows, float* out) const {
  for (std::size_t r = 0; r < rows; ++r) row(first + r, out + r * M_);
}

void FactorTask::row(std::size_t x, float* out) const {
  // Outer product of the factor vectors, first factor fastest, built in a scratch buffer and
  // copied out scaled by the last factor: reading and writing the same array at offsets that are
  // multiples of 4 KiB stalls the stores (4K aliasing) and made this 10x slower.
  thread_local std::vector<float> a, b;
  const std::size_t l = output_.size();
  a.assign(1, 1.0f);
  for (std::size_t j = 0; j + 1 < l; ++j) {
    const double* v = &cond_[j][parent_configuration(x, j) * output_[j]];
    const std::size_t S = a.size();
    b.resize(S * output_[j]);
    for (std::size_t t = 0; t < output_[j]; ++t) {
      const float vt = static_cast<float>(v[t]);
      for (std::size_t s = 0; s < S; ++s) b[s + S * t] = a[s] * vt;
    }
    std::swap(a, b);
  }
  const double* v = &cond_[l - 1][parent_configuration(x, l - 1) * output_[l - 1]];
  const std::size_t S = a.size();
  const float* __restrict src = a.data();
  for (std::size_t t = 0; t < output_[l - 1]; ++t) {
    const float vt = static_cast<float>(v[t]);
    float* __restrict dst = out + S * t;
    for (std::size_t s = 0; s < S; ++s) dst[s] = src[s] * vt;
  }
}

double FactorTask::conditional_entropy(std::size_t x) const {
  double h = 0;
  for (std::size_t j = 0; j < output_.size(); ++j) h += entropy_[j][parent_configuration(x, j)];
  return h;
}

uint32_t FactorTask::sample_output(std::size_t x, Stream& s) const {
  std::size_t y = 0;
  for (std::size_t j = 0; j < output_.size(); ++j) {
    const std::size_t q = output_[j];
    const double* v = &cond_[j][parent_configuration(x, j) * q];
    double u = s.uniform(), acc = 0;
    std::size_t t = 0;
    for (; t + 1 < q; ++t) {
      acc += v[t];
      if (u < acc) break;
    }
    y += out_stride_[j] * t;
  }
  return static_cast<uint32_t>(y);
}

}  // namespace scalinglab::factor
