#pragma once
// The power-law random features (PLRF) model of Paquette, Paquette, Xiao and Pennington (2024),
// "4+3 Phases of Compute-Optimal Neural Scaling Laws" (arXiv 2405.15074), Section 1.1 / 2:
//
//   data    x in R^v, independent coordinates x_j ~ N(0, j^(-2 alpha))      (D = diag(j^(-2 alpha)))
//   target  y = <x, b>,  b_j = j^(-beta)
//   model   y_hat = <W^T x, theta>,  W in R^(v x d) with i.i.d. N(0, 1/d) entries, theta in R^d
//   loss    P(theta) = 1/2 E[(<W^T x, theta> - <x, b>)^2] = 1/2 (W theta - b)^T D (W theta - b)   (exact)
//   SGD     theta_{k+1} = theta_k - (gamma / B) sum_{i<B} (<W^T x_i, theta_k> - <x_i, b>) W^T x_i,
//           one pass (a fresh sample every time), theta_0 = 0, gamma = lr / tr(W^T D W) (below);
//           compute f = d x (samples seen).
//
// Everything here is independent of the lab: the plugin (plrf.cpp) and the standalone tests
// (test_plrf.cpp) both include this file. No allocation happens inside the SGD loops.
//
// Two samplers of the same SGD: `direct` draws x in R^v and forms W^T x (O(v d) per sample), the
// literal algorithm; `eigen` runs the same recursion in the eigenbasis of K = W^T D W, where the
// features W^T x are N(0, K) and the residual y - <W^T x, theta*> (theta* the best theta) is an
// independent N(0, 2 P(theta*)) variable, because (W^T x, y) is Gaussian and the residual is
// uncorrelated with the features. SGD commutes with the rotation, so both produce the same law of
// trajectories (tested), and `eigen` costs O(d) per sample: the paper's flop count.
//
// The exact conditional expectation E[P(theta_k) | W] (over the samples, W fixed) obeys a closed
// recursion on m_i = E[(theta - theta*)_i^2] in that eigenbasis (Gaussian fourth moments):
//   m_i <- m_i (1 - 2 gamma l_i + gamma^2 (1 + 1/B) l_i^2) + (gamma^2 / B) l_i (sum_j l_j m_j + 2 P*),
//   E[P] = P* + 1/2 sum_i l_i m_i,
// the discrete form of the paper's Volterra equation for one draw of W; `expected_curve` computes it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#ifdef PLRF_HAVE_EIGEN
#include <Eigen/Dense>
#endif

namespace plrf {

// ---- random numbers: xoshiro256** seeded by splitmix64, normals by a 256-layer ziggurat --------

inline uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A key for a substream: the run's seed, a tag and an index, mixed.
inline uint64_t stream_key(uint64_t seed, uint64_t tag, uint64_t index = 0) {
  uint64_t s = seed;
  uint64_t a = splitmix64(s);
  s = a ^ (tag * 0xD1B54A32D192ED03ull);
  uint64_t b = splitmix64(s);
  s = b ^ (index * 0x8CB92BA72F3D8DD7ull + 0x632BE59BD9B4E019ull);
  return splitmix64(s);
}

enum Tag : uint64_t { kTagFeatures = 0x57, kTagData = 0xDA7A, kTagEigenData = 0xE16E };

namespace detail {
// Ziggurat tables for the standard normal density f(x) = exp(-x^2/2), 256 layers of equal area V
// (Marsaglia and Tsang 2000, with the layer index and the uniform taken from one 64-bit word).
struct Ziggurat {
  static constexpr int kLayers = 256;
  static constexpr double R = 3.6541528853610088;  // right edge of the base layer
  double x[kLayers + 1], f[kLayers + 1];
  Ziggurat() {
    auto pdf = [](double t) { return std::exp(-0.5 * t * t); };
    // Area of each layer: the tail beyond R plus the rectangle R x f(R).
    const double tail = std::sqrt(M_PI / 2) * std::erfc(R / std::sqrt(2.0));
    const double V = R * pdf(R) + tail;
    x[0] = V / pdf(R);
    x[1] = R;
    for (int i = 2; i < kLayers; ++i) x[i] = std::sqrt(-2 * std::log(V / x[i - 1] + pdf(x[i - 1])));
    x[kLayers] = 0;
    for (int i = 0; i <= kLayers; ++i) f[i] = pdf(x[i]);
  }
};
inline const Ziggurat& ziggurat() {
  static const Ziggurat z;
  return z;
}
}  // namespace detail

class Rng {
 public:
  explicit Rng(uint64_t seed) { reseed(seed); }
  void reseed(uint64_t seed) {
    uint64_t x = seed;
    for (auto& w : s_) w = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }           // [0, 1)
  double uniform_open() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
  double normal() {
    const detail::Ziggurat& z = detail::ziggurat();
    for (;;) {
      const uint64_t bits = next();
      const int i = static_cast<int>(bits & 0xff);
      // A uniform in (-1, 1) from the top 53 bits.
      const double u = (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-52 - 1.0;
      const double xv = u * z.x[i];
      if (std::fabs(xv) < z.x[i + 1]) return xv;  // inside the layer's rectangle
      if (i == 0) {                               // the tail beyond R
        double t, e;
        do {
          t = std::log(uniform_open()) / detail::Ziggurat::R;
          e = std::log(uniform_open());
        } while (-2 * e < t * t);
        return u < 0 ? t - detail::Ziggurat::R : detail::Ziggurat::R - t;
      }
      if (z.f[i + 1] + (z.f[i] - z.f[i + 1]) * uniform() < std::exp(-0.5 * xv * xv)) return xv;
    }
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// ---- the world: D, b and the feature bank ---------------------------------------------------------

struct Config {
  double alpha = 1.0, beta = 1.0;
  int64_t v = 1024, d = 64;
  int64_t batch = 1;
  double lr = 0.25;  // gamma = lr / tr(W^T D W)
  uint64_t seed = 0;
};

// P(0) = 1/2 sum_j j^(-2 alpha - 2 beta).
inline double loss_at_zero(double alpha, double beta, int64_t v) {
  double s = 0;
  for (int64_t j = v; j >= 1; --j) s += std::pow(static_cast<double>(j), -2 * alpha - 2 * beta);
  return 0.5 * s;
}

// The data scales sqrt(D_jj) = j^(-alpha) and the target b.
struct Population {
  std::vector<double> sd, b;  // sd_j = j^(-alpha), b_j = j^(-beta)
  Population(double alpha, double beta, int64_t v) : sd(static_cast<size_t>(v)), b(static_cast<size_t>(v)) {
    for (int64_t j = 0; j < v; ++j) {
      sd[j] = std::pow(static_cast<double>(j + 1), -alpha);
      b[j] = std::pow(static_cast<double>(j + 1), -beta);
    }
  }
};

// W (v x d, column-major: column k contiguous) = G / sqrt(d), where column k of the bank G is drawn
// from its own substream (seed, features, k): the model of size d uses the first d features of one
// bank, and a larger v extends every column. So models of every size d learn the same world.
inline std::vector<double> features(const Config& c) {
  std::vector<double> W(static_cast<size_t>(c.v * c.d));
  const double scale = 1.0 / std::sqrt(static_cast<double>(c.d));
  for (int64_t k = 0; k < c.d; ++k) {
    Rng g(stream_key(c.seed, kTagFeatures, static_cast<uint64_t>(k)));
    double* col = W.data() + k * c.v;
    for (int64_t j = 0; j < c.v; ++j) col[j] = scale * g.normal();
  }
  return W;
}

// The exact population loss 1/2 (W theta - b)^T D (W theta - b), O(v d).
inline double population_loss(const Population& pop, const std::vector<double>& W, int64_t v, int64_t d,
                              const double* theta, std::vector<double>& work /* v */) {
  work.assign(static_cast<size_t>(v), 0.0);
  for (int64_t k = 0; k < d; ++k) {
    const double t = theta[k];
    if (t == 0) continue;
    const double* col = W.data() + k * v;
    for (int64_t j = 0; j < v; ++j) work[j] += col[j] * t;
  }
  double s = 0;
  for (int64_t j = 0; j < v; ++j) {
    const double r = pop.sd[j] * (work[j] - pop.b[j]);
    s += r * r;
  }
  return 0.5 * s;
}

// ---- the spectrum of K = W^T D W and the best theta ------------------------------------------------

struct Spectrum {
  std::vector<double> lambda;      // eigenvalues of K (ascending), 0 for numerically null directions
  std::vector<double> theta_star;  // theta* in the eigenbasis
  double loss_star = 0;            // P(theta*): the best loss of this draw of W
  double loss_zero = 0;            // P(0)
  double trace = 0;                // tr(W^T D W) = sum_j j^(-2 alpha) |row j of W|^2 (E: sum_j j^(-2 alpha))
};

// The step size gamma = lr / tr(W^T D W). With it every eigenvalue l of K = W^T D W has gamma l <= lr,
// so the norm of the kernel of the second-moment recursion, sum_i (gamma l_i / B) / (2 - gamma (1 + 1/B) l_i),
// is at most (lr / B) / (2 - (1 + 1/B) lr) for every draw of W: below 1 (E[loss] stable) when
// lr < 2B / (B + 2), i.e. lr < 2/3 at batch 1. The loss of one run has heavier tails: along an
// eigendirection with gamma l = c a step multiplies the error by 1 - c z^2 (z ~ N(0, 1)), and
// E(1 - c z^2)^4 = 1 - 4c + 18c^2 - 60c^3 + 105c^4 exceeds 1 for c above about 0.36, where the fourth
// moment of theta (the variance of the loss) grows without bound: at batch 1, lr = 0.5 gives rare large
// spikes that dominate means over runs, and lr = 0.25 (the default, factor 0.6) does not.
inline double step_size(const Config& c, const Spectrum& s) { return c.lr / s.trace; }

namespace detail {
// Symmetric eigen-decomposition without Eigen: cyclic Jacobi rotations on a (row-major n x n)
// matrix A, eigenvectors accumulated in V (columns). Slow (O(n^3) per sweep) but dependable.
inline void jacobi_eigen(std::vector<double>& A, int64_t n, std::vector<double>& eval, std::vector<double>& V) {
  V.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) V[i * n + i] = 1;
  auto a = [&](int64_t i, int64_t j) -> double& { return A[i * n + j]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, diag = 0;
    for (int64_t i = 0; i < n; ++i) {
      diag += a(i, i) * a(i, i);
      for (int64_t j = i + 1; j < n; ++j) off += a(i, j) * a(i, j);
    }
    if (off <= 1e-30 * diag || off == 0) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a(p, q);
        if (std::fabs(apq) < 1e-300) continue;
        const double theta = (a(q, q) - a(p, p)) / (2 * apq);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // columns p, q
          const double akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {  // rows p, q
          const double apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
        for (int64_t k = 0; k < n; ++k) {
          const double vkp = V[k * n + p], vkq = V[k * n + q];
          V[k * n + p] = c * vkp - s * vkq;
          V[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  // Sort ascending, columns of V with them.
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](int64_t x, int64_t y) { return a(x, x) < a(y, y); });
  eval.resize(static_cast<size_t>(n));
  std::vector<double> Vs(static_cast<size_t>(n * n));
  for (int64_t c = 0; c < n; ++c) {
    eval[c] = a(idx[c], idx[c]);
    for (int64_t r = 0; r < n; ++r) Vs[r * n + c] = V[r * n + idx[c]];
  }
  V.swap(Vs);
}
}  // namespace detail

namespace detail {
// Eigenvalues of a symmetric tridiagonal matrix (diagonal a, off-diagonal e) by implicit QR steps
// with Wilkinson shifts (Golub and Van Loan, Algorithm 8.3.2), and S^T g for the matrix S of its
// eigenvectors, without forming S: each rotation R of a step (T <- R T R^T) is applied to g.
// O(n^2) in all. On return a holds the eigenvalues (unsorted) and g the vector S^T g.
inline bool tridiagonal_eigen(std::vector<double>& a, std::vector<double>& e, std::vector<double>& g) {
  const int64_t n = static_cast<int64_t>(a.size());
  const double eps = std::numeric_limits<double>::epsilon();
  int64_t end = n - 1, iterations = 0;
  while (end > 0) {
    for (int64_t i = 0; i < end; ++i)
      if (std::fabs(e[i]) <= eps * (std::fabs(a[i]) + std::fabs(a[i + 1]))) e[i] = 0;
    while (end > 0 && e[end - 1] == 0) --end;
    if (end == 0) break;
    if (++iterations > 60 * n) return false;
    int64_t start = end - 1;
    while (start > 0 && e[start - 1] != 0) --start;
    // The shift: the eigenvalue of the trailing 2 x 2 block nearer its last diagonal entry.
    const double half = 0.5 * (a[end - 1] - a[end]), off = e[end - 1];
    double mu = a[end];
    if (half == 0) {
      mu -= std::fabs(off);
    } else {
      const double h = std::hypot(half, off);
      mu -= off * (off / (half + (half > 0 ? h : -h)));
    }
    // Chase the bulge: the first rotation acts on (a_start - mu, e_start), each next one zeroes
    // the bulge b at (k - 1, k + 1) against e_{k-1}.
    double x = a[start] - mu, z = e[start];
    for (int64_t k = start; k < end; ++k) {
      const double r = std::hypot(x, z);
      const double c = r == 0 ? 1.0 : x / r, s = r == 0 ? 0.0 : z / r;
      if (k > start) e[k - 1] = r;
      const double ap = a[k], aq = a[k + 1], ep = e[k];
      a[k] = c * c * ap + 2 * c * s * ep + s * s * aq;
      a[k + 1] = s * s * ap - 2 * c * s * ep + c * c * aq;
      e[k] = c * s * (aq - ap) + (c * c - s * s) * ep;
      if (k + 1 < end) {
        z = s * e[k + 1];  // the new bulge at (k, k + 2)
        e[k + 1] *= c;
      }
      x = e[k];
      const double gk = g[k], gq = g[k + 1];
      g[k] = c * gk + s * gq;
      g[k + 1] = c * gq - s * gk;
    }
  }
  return true;
}
}  // namespace detail

// The spectrum of K = W^T D W in what SGD needs of it: the eigenvalues l_k and the components
// c_k = <u_k, W^T D b> of the target's image on the eigenvectors u_k (up to their signs, which no
// quantity here depends on: flipping u_k flips a coordinate of the Gaussian features, whose law is
// symmetric), theta*_k = c_k / l_k, and P(theta*) from theta* = K^+ W^T D b solved directly.
// With Eigen: Householder tridiagonalization, then the QR iteration above applied to Q^T W^T D b
// (no eigenvectors formed). Without Eigen, or when `eigenvectors` is asked (tests): cyclic Jacobi.
inline Spectrum spectrum(const Config& c, const Population& pop, const std::vector<double>& W,
                         std::vector<double>* eigenvectors = nullptr) {
  const int64_t v = c.v, d = c.d;
  Spectrum s;
  s.loss_zero = 0;
  for (int64_t j = v - 1; j >= 0; --j) s.loss_zero += 0.5 * pop.sd[j] * pop.sd[j] * pop.b[j] * pop.b[j];
  std::vector<double> lam, comp, h(static_cast<size_t>(d), 0.0), theta(static_cast<size_t>(d), 0.0);
  // h = W^T D b and tr(W^T D W)
  s.trace = 0;
  for (int64_t k = 0; k < d; ++k) {
    const double* col = W.data() + k * v;
    double t = 0, q = 0;
    for (int64_t j = 0; j < v; ++j) {
      t += col[j] * pop.sd[j] * pop.sd[j] * pop.b[j];
      q += col[j] * col[j] * pop.sd[j] * pop.sd[j];
    }
    h[k] = t;
    s.trace += q;
  }
  bool solved = false;
#ifdef PLRF_HAVE_EIGEN
  if (!eigenvectors) {
    Eigen::MatrixXd Wd(v, d);  // D^(1/2) W
    for (int64_t k = 0; k < d; ++k)
      for (int64_t j = 0; j < v; ++j) Wd(j, k) = pop.sd[j] * W[k * v + j];
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(d, d);
    K.selfadjointView<Eigen::Lower>().rankUpdate(Wd.transpose());
    K.triangularView<Eigen::StrictlyUpper>() = K.transpose();
    const Eigen::Map<const Eigen::VectorXd> hv(h.data(), d);
    {  // theta* by a pivoted LDL^T solve (K is positive definite when v >= d, if ill-conditioned)
      const Eigen::LDLT<Eigen::MatrixXd> ldlt(K);
      Eigen::Map<Eigen::VectorXd>(theta.data(), d) = ldlt.solve(hv);
    }
    Eigen::Tridiagonalization<Eigen::MatrixXd> tri(K);
    const Eigen::VectorXd diag = tri.diagonal(), sub = tri.subDiagonal();  // views with a stride: copied
    lam.assign(diag.data(), diag.data() + d);
    std::vector<double> off(sub.data(), sub.data() + sub.size());
    const Eigen::VectorXd g = tri.matrixQ().adjoint() * hv;
    comp.assign(g.data(), g.data() + d);
    if (!detail::tridiagonal_eigen(lam, off, comp))
      throw std::runtime_error("the eigenvalues of W^T D W did not converge");
    solved = true;
  }
#endif
  if (!solved) {
    std::vector<double> K(static_cast<size_t>(d * d), 0.0), V;
    for (int64_t p = 0; p < d; ++p)
      for (int64_t q = 0; q <= p; ++q) {
        const double* cp = W.data() + p * v;
        const double* cq = W.data() + q * v;
        double t = 0;
        for (int64_t j = 0; j < v; ++j) t += cp[j] * cq[j] * pop.sd[j] * pop.sd[j];
        K[p * d + q] = K[q * d + p] = t;
      }
    detail::jacobi_eigen(K, d, lam, V);  // V row-major, eigenvector k in column k
    comp.assign(static_cast<size_t>(d), 0.0);
    for (int64_t k = 0; k < d; ++k)
      for (int64_t i = 0; i < d; ++i) comp[k] += V[i * d + k] * h[i];
    const double top = lam.empty() ? 0 : std::max(lam.back(), 0.0);
    for (int64_t k = 0; k < d; ++k)
      if (lam[k] > top * 1e-13 * static_cast<double>(d))
        for (int64_t i = 0; i < d; ++i) theta[i] += comp[k] / lam[k] * V[i * d + k];
    if (eigenvectors) {
      eigenvectors->assign(static_cast<size_t>(d * d), 0.0);
      for (int64_t k = 0; k < d; ++k)
        for (int64_t i = 0; i < d; ++i) (*eigenvectors)[k * d + i] = V[i * d + k];
    }
  }
  // Ascending eigenvalues with their components. Directions of K numerically null (rounding) are
  // never moved by SGD and never seen by the loss: they carry no part of theta*.
  std::vector<int64_t> order(static_cast<size_t>(d));
  for (int64_t i = 0; i < d; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return lam[x] < lam[y]; });
  double top = 0;
  for (double l : lam) top = std::max(top, l);
  const double null_level = top * 1e-13 * static_cast<double>(d);
  s.lambda.resize(static_cast<size_t>(d));
  s.theta_star.resize(static_cast<size_t>(d));
  for (int64_t i = 0; i < d; ++i) {
    const int64_t k = order[i];
    const bool null_dir = !(lam[k] > null_level);
    s.lambda[i] = null_dir ? 0.0 : lam[k];
    s.theta_star[i] = null_dir ? 0.0 : comp[k] / lam[k];
  }
  std::vector<double> work;
  s.loss_star = population_loss(pop, W, v, d, theta.data(), work);
  return s;
}

// A cache of spectra shared by the tasks of one process: a sweep over the compute f trains the
// same (seed, alpha, beta, v, d) several times, and the decomposition (O(v d^2 + d^3)) is the
// costly part. Values are computed by the same deterministic code whether cached or not, so
// results never depend on the order of tasks or on threads.
struct SpectrumKey {
  uint64_t seed;
  double alpha, beta;
  int64_t v, d;
  bool operator==(const SpectrumKey& o) const {
    return seed == o.seed && alpha == o.alpha && beta == o.beta && v == o.v && d == o.d;
  }
};
class SpectrumCache {
 public:
  std::shared_ptr<const Spectrum> get(const Config& c) {
    const SpectrumKey key{c.seed, c.alpha, c.beta, c.v, c.d};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->first == key) {
          entries_.splice(entries_.begin(), entries_, it);  // most recently used first
          return entries_.front().second;
        }
    }
    const Population pop(c.alpha, c.beta, c.v);
    const std::vector<double> W = features(c);
    auto s = std::make_shared<const Spectrum>(spectrum(c, pop, W));
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.emplace_front(key, s);
    bytes_ += bytes(*s);
    while (bytes_ > kMaxBytes && entries_.size() > 1) {
      bytes_ -= bytes(*entries_.back().second);
      entries_.pop_back();
    }
    return s;
  }
  static SpectrumCache& instance() {
    static SpectrumCache c;
    return c;
  }

 private:
  static size_t bytes(const Spectrum& s) { return 16 * s.lambda.size() + 64; }
  static constexpr size_t kMaxBytes = size_t(64) << 20;
  std::mutex mutex_;
  std::list<std::pair<SpectrumKey, std::shared_ptr<const Spectrum>>> entries_;
  size_t bytes_ = 0;
};

// ---- training ---------------------------------------------------------------------------------------

// About `points` log-spaced steps in [1, steps] (distinct integers, the last one included).
inline std::vector<int64_t> log_steps(int64_t steps, int points) {
  std::vector<int64_t> out;
  if (steps <= 0) return out;
  if (points < 2) points = 2;
  const double top = std::log(static_cast<double>(steps));
  for (int i = 0; i < points; ++i) {
    const int64_t s = std::max<int64_t>(1, std::llround(std::exp(top * i / (points - 1))));
    if (out.empty() || s > out.back()) out.push_back(std::min(s, steps));
  }
  if (out.back() != steps) out.push_back(steps);
  return out;
}

struct Curve {
  std::vector<double> steps, loss;  // the loss after each recorded step
  double final_loss = 0;
  bool diverged = false;
};

// A run's loss is declared diverged once it exceeds this multiple of P(0) (or is not finite).
constexpr double kDivergence = 1e6;

// SGD in the eigenbasis of K: features l^(1/2) z, residual sqrt(2 P*) xi, independent.
inline Curve sgd_eigen(const Config& c, const Spectrum& s, int64_t steps, int points) {
  const int64_t d = c.d, B = c.batch;
  const double gamma = step_size(c, s), g_over_b = gamma / static_cast<double>(B);
  const double sigma = std::sqrt(2 * std::max(s.loss_star, 0.0));
  std::vector<double> delta(static_cast<size_t>(d)), root(static_cast<size_t>(d)), phi(static_cast<size_t>(d)),
      grad(static_cast<size_t>(d));
  for (int64_t i = 0; i < d; ++i) {
    delta[i] = -s.theta_star[i];
    root[i] = std::sqrt(s.lambda[i]);
  }
  auto loss = [&] {
    double t = 0;
    for (int64_t i = 0; i < d; ++i) t += s.lambda[i] * delta[i] * delta[i];
    return s.loss_star + 0.5 * t;
  };
  Rng rng(stream_key(c.seed, kTagEigenData, static_cast<uint64_t>(d)));
  Curve out;
  const std::vector<int64_t> marks = log_steps(steps, points);
  out.steps.reserve(marks.size());
  out.loss.reserve(marks.size());
  size_t next_mark = 0;
  const double limit = kDivergence * std::max(s.loss_zero, 1e-300);
  for (int64_t k = 1; k <= steps; ++k) {
    if (B == 1) {
      double pred = 0;
      for (int64_t i = 0; i < d; ++i) {
        const double p = root[i] * rng.normal();
        phi[i] = p;
        pred += p * delta[i];
      }
      const double err = pred - sigma * rng.normal();
      const double a = g_over_b * err;
      for (int64_t i = 0; i < d; ++i) delta[i] -= a * phi[i];
    } else {
      std::fill(grad.begin(), grad.end(), 0.0);
      for (int64_t b = 0; b < B; ++b) {
        double pred = 0;
        for (int64_t i = 0; i < d; ++i) {
          const double p = root[i] * rng.normal();
          phi[i] = p;
          pred += p * delta[i];
        }
        const double err = pred - sigma * rng.normal();
        for (int64_t i = 0; i < d; ++i) grad[i] += err * phi[i];
      }
      for (int64_t i = 0; i < d; ++i) delta[i] -= g_over_b * grad[i];
    }
    if (next_mark < marks.size() && marks[next_mark] == k) {
      const double l = loss();
      out.steps.push_back(static_cast<double>(k));
      out.loss.push_back(l);
      ++next_mark;
      if (!(l < limit)) {
        out.diverged = true;
        break;
      }
    }
  }
  out.final_loss = out.diverged ? std::numeric_limits<double>::infinity() : loss();
  return out;
}

// The literal algorithm: x in R^v drawn, features W^T x formed (O(v d) a sample).
inline Curve sgd_direct(const Config& c, const Population& pop, const std::vector<double>& W, const Spectrum& s,
                        int64_t steps, int points) {
  const int64_t d = c.d, v = c.v, B = c.batch;
  const double loss_zero = s.loss_zero;
  const double gamma = step_size(c, s), g_over_b = gamma / static_cast<double>(B);
  std::vector<double> theta(static_cast<size_t>(d), 0.0), x(static_cast<size_t>(v)), phi(static_cast<size_t>(d)),
      grad(static_cast<size_t>(d)), work(static_cast<size_t>(v));
  Rng rng(stream_key(c.seed, kTagData));
  Curve out;
  const std::vector<int64_t> marks = log_steps(steps, points);
  size_t next_mark = 0;
  const double limit = kDivergence * std::max(loss_zero, 1e-300);
  for (int64_t k = 1; k <= steps; ++k) {
    std::fill(grad.begin(), grad.end(), 0.0);
    for (int64_t b = 0; b < B; ++b) {
      double y = 0;
      for (int64_t j = 0; j < v; ++j) {
        x[j] = pop.sd[j] * rng.normal();
        y += x[j] * pop.b[j];
      }
      double pred = 0;
      for (int64_t q = 0; q < d; ++q) {
        const double* col = W.data() + q * v;
        double t = 0;
        for (int64_t j = 0; j < v; ++j) t += col[j] * x[j];
        phi[q] = t;
        pred += t * theta[q];
      }
      const double err = pred - y;
      for (int64_t q = 0; q < d; ++q) grad[q] += err * phi[q];
    }
    for (int64_t q = 0; q < d; ++q) theta[q] -= g_over_b * grad[q];
    if (next_mark < marks.size() && marks[next_mark] == k) {
      const double l = population_loss(pop, W, v, d, theta.data(), work);
      out.steps.push_back(static_cast<double>(k));
      out.loss.push_back(l);
      ++next_mark;
      if (!(l < limit)) {
        out.diverged = true;
        break;
      }
    }
  }
  out.final_loss = out.diverged ? std::numeric_limits<double>::infinity()
                                 : population_loss(pop, W, v, d, theta.data(), work);
  return out;
}

// E[P(theta_k) | W] exactly, by the second-moment recursion in K's eigenbasis (see the top).
inline Curve expected_curve(const Config& c, const Spectrum& s, int64_t steps, int points) {
  const int64_t d = c.d;
  const double gamma = step_size(c, s), B = static_cast<double>(c.batch);
  const double noise = 2 * std::max(s.loss_star, 0.0);
  std::vector<double> m(static_cast<size_t>(d)), a(static_cast<size_t>(d)), q(static_cast<size_t>(d));
  double S = 0;  // sum_i l_i m_i
  for (int64_t i = 0; i < d; ++i) {
    const double l = s.lambda[i];
    m[i] = s.theta_star[i] * s.theta_star[i];
    a[i] = 1 - 2 * gamma * l + gamma * gamma * (1 + 1 / B) * l * l;
    q[i] = gamma * gamma / B * l;
    S += l * m[i];
  }
  Curve out;
  const std::vector<int64_t> marks = log_steps(steps, points);
  size_t next_mark = 0;
  const double limit = kDivergence * std::max(s.loss_zero, 1e-300);
  for (int64_t k = 1; k <= steps; ++k) {
    const double drive = S + noise;
    double S_next = 0;
    for (int64_t i = 0; i < d; ++i) {
      const double mi = m[i] * a[i] + q[i] * drive;
      m[i] = mi;
      S_next += s.lambda[i] * mi;
    }
    S = S_next;
    if (next_mark < marks.size() && marks[next_mark] == k) {
      const double l = s.loss_star + 0.5 * S;
      out.steps.push_back(static_cast<double>(k));
      out.loss.push_back(l);
      ++next_mark;
      if (!(l < limit)) {
        out.diverged = true;
        break;
      }
    }
  }
  out.final_loss = out.diverged ? std::numeric_limits<double>::infinity() : s.loss_star + 0.5 * S;
  return out;
}

}  // namespace plrf
