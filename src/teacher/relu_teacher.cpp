#include "scalinglab/teacher/relu_teacher.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "scalinglab/core/zipf.hpp"

namespace scalinglab::teacher {

void uniform_on_sphere(double* out, std::size_t d, Stream& s) {
  double norm = 0;
  do {
    norm = 0;
    for (std::size_t j = 0; j < d; ++j) {
      out[j] = s.normal();
      norm += out[j] * out[j];
    }
  } while (norm == 0);
  norm = std::sqrt(norm);
  for (std::size_t j = 0; j < d; ++j) out[j] /= norm;
}

namespace {
double relu_network(const std::vector<double>& coef, const std::vector<double>& atoms, std::size_t d, const double* x) {
  double f = 0;
  for (std::size_t i = 0; i < coef.size(); ++i) {
    const double* w = atoms.data() + i * d;
    double z = 0;
    for (std::size_t j = 0; j < d; ++j) z += w[j] * x[j];
    if (z > 0) f += coef[i] * z;
  }
  return f;
}
}  // namespace

double ReluTeacher::operator()(const double* x) const {
  thread_local std::vector<double> coef;
  coef.resize(weight.size());
  for (std::size_t i = 0; i < weight.size(); ++i) coef[i] = scale * sign[i] * weight[i];
  return relu_network(coef, atoms, d, x);
}

ReluTeacher sample_teacher(std::size_t d, double K, Stream& s, double tol, const TeacherOptions& o) {
  if (d < 1 || !(K > 0) || !(tol > 0 && tol < 1)) throw std::invalid_argument("teacher needs d >= 1, K > 0, 0 < tol < 1");
  if (!(o.dp_factor > 0) || !(o.sign_p >= 0 && o.sign_p <= 1)) throw std::invalid_argument("teacher needs dp_factor > 0, 0 <= sign_p <= 1");
  ReluTeacher f;
  f.d = d;
  f.K = K;
  f.scale = std::sqrt(K + 1);
  const double concentration = o.dp_factor * K;
  double left = 1.0;  // mass not yet assigned
  while (left >= tol) {
    // beta ~ Beta(1, concentration): 1 - U^(1/concentration).
    const double beta = -std::expm1(std::log(s.uniform_pos()) / concentration);
    f.weight.push_back(left * beta);
    left *= 1 - beta;
  }
  f.weight.push_back(left);  // the remainder on one last atom: the weights sum to 1
  f.sign.resize(f.weight.size());
  f.atoms.resize(f.weight.size() * d);
  for (std::size_t i = 0; i < f.weight.size(); ++i) {
    f.sign[i] = s.uniform() < o.sign_p ? 1.0 : -1.0;
    uniform_on_sphere(f.atoms.data() + i * d, d, s);
  }
  return f;
}

double ConstrainedPredictor::operator()(const double* x) const {
  thread_local std::vector<double> coef;
  coef.resize(sign.size());
  for (std::size_t i = 0; i < sign.size(); ++i) coef[i] = scale * sign[i];
  return relu_network(coef, atoms, d, x);
}

ConstrainedPredictor sample_predictor(const ReluTeacher& f, std::size_t n, Stream& s, bool merge, Sampling sampling) {
  if (n < 1) throw std::invalid_argument("predictor needs n >= 1");
  const std::size_t d = f.d;
  ConstrainedPredictor g;
  g.d = d;
  g.scale = std::sqrt(f.K + 1) / static_cast<double>(n);
  const AliasTable table(f.weight);
  const auto draw = [&] {
    return static_cast<uint32_t>(sampling == Sampling::theta ? table.sample(s) : s.below(f.size()));
  };
  auto add = [&](uint32_t k, double count) {
    g.index.push_back(k);
    g.sign.push_back(f.sign[k] * count);
    const double* a = f.atoms.data() + static_cast<std::size_t>(k) * d;
    g.atoms.insert(g.atoms.end(), a, a + d);
  };
  if (!merge) {
    g.index.reserve(n), g.sign.reserve(n), g.atoms.reserve(n * d);
    for (std::size_t i = 0; i < n; ++i) add(draw(), 1.0);
    return g;
  }
  std::vector<double> count(f.size(), 0.0);
  for (std::size_t i = 0; i < n; ++i) count[draw()] += 1;
  for (std::size_t k = 0; k < f.size(); ++k)
    if (count[k] > 0) add(static_cast<uint32_t>(k), count[k]);
  return g;
}

void quantise(ConstrainedPredictor& g, double eps, Stream& s, Quantiser q) {
  if (!(eps >= 0 && eps <= 2)) throw std::invalid_argument("eps must be in [0, 2]");
  const std::size_t d = g.d;
  if (eps == 0) return;
  if (q == Quantiser::nearest) {
    // Coordinatewise rounding is the nearest point of a cubic lattice; with spacing h the distance
    // is at most h sqrt(d)/2 = eps, so the lattice is an eps-cover of the sphere.
    const double h = 2 * eps / std::sqrt(static_cast<double>(d));
    for (double& w : g.atoms) w = h * std::round(w / h);
    return;
  }
  if (d < 2) return;
  if (q == Quantiser::draw)
    for (double v : g.sign)
      if (std::fabs(v) != 1) throw std::invalid_argument("per-draw quantisation needs one entry per draw (an unmerged predictor)");
  std::vector<double> dir(d);
  const double phi = 2 * std::asin(eps / 2);  // chord eps on the unit sphere
  for (std::size_t i = 0; i < g.sign.size(); ++i) {
    double* w = g.atoms.data() + i * d;
    // Per atom: the direction is a function of the teacher atom (its own substream), so every draw
    // of one atom lands on the same point, as with a fixed cover; per draw: a fresh direction each.
    Stream atom_stream = s.substream(g.index[i]);
    Stream& r = q == Quantiser::atom ? atom_stream : s;
    // A uniform unit direction orthogonal to w, then w cos(phi) + u sin(phi).
    double norm = 0;
    do {
      uniform_on_sphere(dir.data(), d, r);
      double dot = 0;
      for (std::size_t j = 0; j < d; ++j) dot += dir[j] * w[j];
      norm = 0;
      for (std::size_t j = 0; j < d; ++j) dir[j] -= dot * w[j], norm += dir[j] * dir[j];
    } while (norm < 1e-12);
    norm = std::sqrt(norm);
    for (std::size_t j = 0; j < d; ++j) w[j] = w[j] * std::cos(phi) + dir[j] / norm * std::sin(phi);
  }
}

double bernoulli_logit_kl(double a, double b) {
  // log sigmoid(z) = -log(1 + e^-z), written to avoid overflow for either sign of z.
  const auto log_sigmoid = [](double z) { return z >= 0 ? -std::log1p(std::exp(-z)) : z - std::log1p(std::exp(z)); };
  const double p = std::exp(log_sigmoid(a)), q = 1 - p;  // sigmoid(a), sigmoid(-a)
  return p * (log_sigmoid(a) - log_sigmoid(b)) + q * (log_sigmoid(-a) - log_sigmoid(-b));
}

}  // namespace scalinglab::teacher
