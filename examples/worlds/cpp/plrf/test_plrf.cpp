// The PLRF world against independent ground truth, without the lab. Each check prints one line; the
// program ends with "N passed, M failed" and exits 1 on any failure.
//
//   (a) the exact loss formula 1/2 (W theta - b)^T D (W theta - b) against a Monte-Carlo estimate of
//       1/2 E[(<W^T x, theta> - <x, b>)^2] on tiny v, d;
//   (b) one SGD step (batch 1 and 2) against a hand computation from the same samples;
//   (c) the loss at theta = 0 (and after 0 steps) equals 1/2 sum_j j^(-2 alpha - 2 beta);
//   (d) the same seed gives bit-identical results, another seed different ones;
// and: the normal generator's moments and tail, W's law and its nesting across d, theta* as the
// minimiser, the Jacobi fallback solver, the eigen and direct samplers against the exact
// expectation E[P | W] of the second-moment recursion (and against each other), and the plugin's
// declaration through the C table it exports.
#include <scalinglab/world_plugin.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "plrf_core.hpp"

// The plugin's entry points (defined by SCALINGLAB_WORLD in plrf.cpp, linked into this program).
extern "C" uint32_t scalinglab_plugin_abi();
extern "C" const scalinglab_plugin_table* scalinglab_plugin();

namespace {

int g_passed = 0, g_failed = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s  %s\n", ok ? "PASS" : "FAIL", what.c_str());
  (ok ? g_passed : g_failed)++;
}
std::string fmt(const char* f, double a = 0, double b = 0, double c = 0, double d = 0) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

// ---- a small host for the C table --------------------------------------------------------------

struct Sink {
  std::map<std::string, double> scalars;
  std::map<std::string, std::vector<double>> series;
  std::string error;
};

}  // namespace

struct scalinglab_sink {
  Sink* sink;
};

namespace {

void host_scalar(scalinglab_sink* s, const char* n, double v) { s->sink->scalars[n] = v; }
void host_series(scalinglab_sink* s, const char* n, const double* v, size_t k) {
  s->sink->series[n] = std::vector<double>(v, v + k);
}
void host_fail(scalinglab_sink* s, const char* m) { s->sink->error = m; }
const scalinglab_host kHost{&host_scalar, &host_series, &host_fail};

const scalinglab_measure_entry* find_measure(const std::string& name) {
  const scalinglab_plugin_table* t = scalinglab_plugin();
  for (size_t i = 0; i < t->count; ++i) {
    const std::string decl = t->measures[i].declaration_json;
    if (decl.find("\"name\":\"" + name + "\"") != std::string::npos) return &t->measures[i];
  }
  return nullptr;
}

struct Call {
  std::vector<std::string> names, texts;
  std::vector<double> numbers;
  void set(const std::string& n, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    names.push_back(n), texts.push_back(buf), numbers.push_back(x);
  }
  void set(const std::string& n, const std::string& word) { names.push_back(n), texts.push_back(word), numbers.push_back(NAN); }
  Sink run(const scalinglab_measure_entry* e, uint64_t seed, scalinglab_call_fn fn = nullptr) const {
    std::vector<const char*> np, tp;
    for (size_t i = 0; i < names.size(); ++i) np.push_back(names[i].c_str()), tp.push_back(texts[i].c_str());
    scalinglab_args a{names.size(), np.data(), tp.data(), numbers.data(), seed};
    Sink sink;
    scalinglab_sink s{&sink};
    const int status = (fn ? fn : e->run)(e->context, &a, &kHost, &s);
    if (status != 0 && sink.error.empty()) sink.error = "nonzero status";
    return sink;
  }
};

Call args(double alpha, double beta, int64_t v, int64_t d, int64_t steps, int64_t batch = 1, double lr = 0.5,
          const std::string& sampler = "eigen") {
  Call c;
  c.set("alpha", alpha), c.set("beta", beta), c.set("v", static_cast<double>(v)), c.set("d", static_cast<double>(d));
  c.set("f", static_cast<double>(d * steps * batch)), c.set("steps", static_cast<double>(steps));
  c.set("batch", static_cast<double>(batch)), c.set("lr", lr), c.set("points", 20.0);
  if (sampler != "none") c.set("sampler", sampler);
  return c;
}

double mean_of(const std::vector<double>& x) {
  double s = 0;
  for (double t : x) s += t;
  return s / static_cast<double>(x.size());
}
double sem_of(const std::vector<double>& x) {
  const double m = mean_of(x);
  double s = 0;
  for (double t : x) s += (t - m) * (t - m);
  return std::sqrt(s / static_cast<double>(x.size() - 1) / static_cast<double>(x.size()));
}

// ---- the checks --------------------------------------------------------------------------------

void test_normals() {
  plrf::Rng rng(12345);
  const int n = 4000000;
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  int tail3 = 0, tail4 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    s1 += z, s2 += z * z, s3 += z * z * z, s4 += z * z * z * z;
    tail3 += std::fabs(z) > 3, tail4 += std::fabs(z) > 4;
  }
  const double N = n;
  // Standard errors: mean 1/sqrt(n), second moment sqrt(2/n), third sqrt(15/n), fourth sqrt(96/n).
  expect(std::fabs(s1 / N) < 5 / std::sqrt(N), fmt("normal: mean %.5f (|.| < 5 se)", s1 / N));
  expect(std::fabs(s2 / N - 1) < 5 * std::sqrt(2 / N), fmt("normal: E z^2 = %.5f (1)", s2 / N));
  expect(std::fabs(s3 / N) < 5 * std::sqrt(15 / N), fmt("normal: E z^3 = %.5f (0)", s3 / N));
  expect(std::fabs(s4 / N - 3) < 5 * std::sqrt(96 / N), fmt("normal: E z^4 = %.4f (3)", s4 / N));
  const double p3 = std::erfc(3 / std::sqrt(2.0)), p4 = std::erfc(4 / std::sqrt(2.0));
  expect(std::fabs(tail3 / N - p3) < 5 * std::sqrt(p3 / N), fmt("normal: P(|z| > 3) = %.6f (%.6f)", tail3 / N, p3));
  expect(std::fabs(tail4 / N - p4) < 5 * std::sqrt(p4 / N), fmt("normal: P(|z| > 4) = %.7f (%.7f)", tail4 / N, p4));
  const plrf::detail::Ziggurat& z = plrf::detail::ziggurat();
  bool finite = true;
  for (int i = 0; i <= 256; ++i) finite = finite && std::isfinite(z.x[i]) && (i == 0 || z.x[i] >= 0);
  expect(finite && z.x[255] > 0 && z.x[255] < 0.3, fmt("ziggurat tables finite and decreasing to 0 (x[255] = %.4f)", z.x[255]));
}

void test_features() {
  plrf::Config c;
  c.v = 400, c.d = 50, c.seed = 7;
  const std::vector<double> W = plrf::features(c);
  double s1 = 0, s2 = 0;
  for (double w : W) s1 += w, s2 += w * w;
  const double n = static_cast<double>(W.size());
  expect(std::fabs(s1 / n) < 5 * std::sqrt(1.0 / c.d / n) && std::fabs(s2 / n * c.d - 1) < 5 * std::sqrt(2 / n),
         fmt("W entries: mean %.2e, variance x d = %.4f (N(0, 1/d))", s1 / n, s2 / n * c.d));
  plrf::Config big = c;
  big.d = 80, big.v = 500;
  const std::vector<double> W2 = plrf::features(big);
  double worst = 0;
  for (int64_t k = 0; k < c.d; ++k)
    for (int64_t j = 0; j < c.v; ++j)
      worst = std::max(worst, std::fabs(W2[k * big.v + j] * std::sqrt(80.0) - W[k * c.v + j] * std::sqrt(50.0)));
  expect(worst < 1e-12, fmt("feature bank nested: the first 50 features of the (500, 80) world extend those of (400, 50) (max diff %.1e)", worst));
}

// (a) exact loss against Monte Carlo.
void test_loss_monte_carlo() {
  plrf::Config c;
  c.alpha = 0.8, c.beta = 0.6, c.v = 5, c.d = 3, c.seed = 99;
  const plrf::Population pop(c.alpha, c.beta, c.v);
  const std::vector<double> W = plrf::features(c);
  const double theta[3] = {0.3, -0.7, 1.1};
  std::vector<double> work;
  const double exact = plrf::population_loss(pop, W, c.v, c.d, theta, work);
  plrf::Rng rng(2024);
  const int n = 2000000;
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    double x[5], y = 0, pred = 0;
    for (int j = 0; j < 5; ++j) x[j] = std::pow(j + 1.0, -c.alpha) * rng.normal(), y += x[j] * std::pow(j + 1.0, -c.beta);
    for (int k = 0; k < 3; ++k) {
      double phi = 0;
      for (int j = 0; j < 5; ++j) phi += W[k * 5 + j] * x[j];
      pred += phi * theta[k];
    }
    const double l = 0.5 * (pred - y) * (pred - y);
    s += l, s2 += l * l;
  }
  const double m = s / n, se = std::sqrt((s2 / n - m * m) / n);
  expect(std::fabs(m - exact) < 4 * se,
         fmt("(a) exact loss %.6f vs Monte Carlo %.6f +- %.6f (v = 5, d = 3, 2e6 samples)", exact, m, se));
}

// (b) one SGD step by hand, through the plugin's C table (sampler = direct).
void test_one_step() {
  const scalinglab_measure_entry* e = find_measure("plrf.loss");
  for (int64_t batch : {1, 2}) {
    plrf::Config c;
    c.alpha = 0.9, c.beta = 0.7, c.v = 6, c.d = 4, c.batch = batch, c.lr = 0.5, c.seed = 31;
    const Sink out = args(c.alpha, c.beta, c.v, c.d, 1, batch, c.lr, "direct").run(e, c.seed);
    // By hand: theta_1 = -(gamma / B) sum_i (<W^T x_i, 0> - y_i) W^T x_i, the x_i drawn from the run's
    // data stream in order, coordinate j scaled by j^(-alpha).
    const std::vector<double> W = plrf::features(c);
    double trK = 0;  // tr(W^T D W) = sum_j j^(-2 alpha) sum_k W_jk^2
    for (int j = 0; j < c.v; ++j)
      for (int k = 0; k < c.d; ++k) trK += std::pow(j + 1.0, -2 * c.alpha) * W[k * c.v + j] * W[k * c.v + j];
    const double gamma = c.lr / trK;
    plrf::Rng rng(plrf::stream_key(c.seed, plrf::kTagData));
    std::vector<double> theta(4, 0.0);
    for (int64_t b = 0; b < batch; ++b) {
      double x[6], y = 0;
      for (int j = 0; j < 6; ++j) x[j] = std::pow(j + 1.0, -c.alpha) * rng.normal(), y += x[j] * std::pow(j + 1.0, -c.beta);
      for (int k = 0; k < 4; ++k) {
        double phi = 0;
        for (int j = 0; j < 6; ++j) phi += W[k * 6 + j] * x[j];
        theta[k] += gamma / static_cast<double>(batch) * y * phi;  // the error at theta = 0 is -y
      }
    }
    double loss = 0;
    for (int j = 0; j < 6; ++j) {
      double wt = 0;
      for (int k = 0; k < 4; ++k) wt += W[k * 6 + j] * theta[k];
      const double r = wt - std::pow(j + 1.0, -c.beta);
      loss += 0.5 * std::pow(j + 1.0, -2 * c.alpha) * r * r;
    }
    const double got = out.scalars.count("loss") ? out.scalars.at("loss") : NAN;
    expect(out.error.empty() && std::fabs(got - loss) < 1e-12 * loss,
           fmt("(b) one SGD step, batch %.0f: plugin %.15f, by hand %.15f", static_cast<double>(batch), got, loss));
  }
}

// (c) the loss at theta = 0.
void test_loss_at_zero() {
  const double alpha = 0.7, beta = 1.2;
  const int64_t v = 300, d = 20;
  double ref = 0;
  for (int64_t j = 1; j <= v; ++j) ref += 0.5 * std::pow(static_cast<double>(j), -2 * alpha - 2 * beta);
  plrf::Config c;
  c.alpha = alpha, c.beta = beta, c.v = v, c.d = d, c.seed = 5;
  const plrf::Population pop(alpha, beta, v);
  const std::vector<double> W = plrf::features(c);
  std::vector<double> zero(d, 0.0), work;
  const double direct = plrf::population_loss(pop, W, v, d, zero.data(), work);
  expect(std::fabs(direct - ref) < 1e-13 * ref, fmt("(c) P(0) = %.15f = 1/2 sum j^(-2a-2b) = %.15f", direct, ref));
  const scalinglab_measure_entry* loss = find_measure("plrf.loss");
  const scalinglab_measure_entry* expct = find_measure("plrf.expected");
  for (const char* sampler : {"eigen", "direct"}) {
    const Sink s = args(alpha, beta, v, d, 0, 1, 0.5, sampler).run(loss, 5);
    expect(s.error.empty() && std::fabs(s.scalars.at("loss") - ref) < 1e-9 * ref &&
               std::fabs(s.scalars.at("loss_zero") - ref) < 1e-12 * ref,
           fmt("(c) plrf.loss after 0 steps = %.12f, loss_zero = %.12f (sampler ", s.scalars.at("loss"),
               s.scalars.at("loss_zero")) + sampler + ")");
  }
  const Sink s = args(alpha, beta, v, d, 0, 1, 0.5, "none").run(expct, 5);
  expect(s.error.empty() && std::fabs(s.scalars.at("loss") - ref) < 1e-9 * ref,
         fmt("(c) plrf.expected after 0 steps = %.12f", s.scalars.at("loss")));
}

// (d) determinism.
void test_seeds() {
  const scalinglab_measure_entry* e = find_measure("plrf.loss");
  for (const char* sampler : {"eigen", "direct"}) {
    const Call a = args(1.0, 1.5, 200, 16, 300, 1, 0.5, sampler);
    const Sink x = a.run(e, 77), y = a.run(e, 77), z = a.run(e, 78);
    const bool same = x.scalars == y.scalars && x.series == y.series;
    const bool differs = x.scalars.at("loss") != z.scalars.at("loss") && x.series.at("curve_loss") != z.series.at("curve_loss");
    expect(same, std::string("(d) the same seed gives bit-identical metrics and curves (") + sampler + ")");
    expect(differs, fmt("(d) another seed gives another result: %.10g vs %.10g (", x.scalars.at("loss"), z.scalars.at("loss")) +
                        sampler + ")");
  }
}

// theta* minimises P: the gradient W^T D (W theta* - b) vanishes and perturbations raise the loss.
void test_theta_star() {
  plrf::Config c;
  c.alpha = 0.8, c.beta = 0.9, c.v = 120, c.d = 30, c.seed = 11;
  const plrf::Population pop(c.alpha, c.beta, c.v);
  const std::vector<double> W = plrf::features(c);
  std::vector<double> U;
  const plrf::Spectrum s = plrf::spectrum(c, pop, W, &U);
  std::vector<double> theta(c.d, 0.0), work;
  for (int64_t k = 0; k < c.d; ++k)
    for (int64_t i = 0; i < c.d; ++i) theta[i] += s.theta_star[k] * U[k * c.d + i];
  const double best = plrf::population_loss(pop, W, c.v, c.d, theta.data(), work);
  double grad_norm = 0;
  std::vector<double> r(c.v, 0.0);
  for (int64_t k = 0; k < c.d; ++k)
    for (int64_t j = 0; j < c.v; ++j) r[j] += W[k * c.v + j] * theta[k];
  for (int64_t k = 0; k < c.d; ++k) {
    double g = 0;
    for (int64_t j = 0; j < c.v; ++j) g += W[k * c.v + j] * pop.sd[j] * pop.sd[j] * (r[j] - pop.b[j]);
    grad_norm += g * g;
  }
  bool lower = true;
  plrf::Rng rng(3);
  for (int t = 0; t < 20; ++t) {
    std::vector<double> p = theta;
    for (auto& x : p) x += 1e-3 * rng.normal();
    lower = lower && plrf::population_loss(pop, W, c.v, c.d, p.data(), work) > best;
  }
  expect(std::sqrt(grad_norm) < 1e-10 && lower && std::fabs(best - s.loss_star) < 1e-14 + 1e-10 * best,
         fmt("theta* = K^+ W^T D b: |grad P(theta*)| = %.1e, P(theta*) = %.6e below 20 random perturbations", std::sqrt(grad_norm), best));
  // K u_k = lambda_k u_k for the decomposition used.
  double worst = 0;
  for (int64_t k = 0; k < c.d; k += 7) {
    const double* u = U.data() + k * c.d;
    for (int64_t p = 0; p < c.d; ++p) {
      double Ku = 0;
      for (int64_t q = 0; q < c.d; ++q) {
        double kpq = 0;
        for (int64_t j = 0; j < c.v; ++j) kpq += W[p * c.v + j] * W[q * c.v + j] * pop.sd[j] * pop.sd[j];
        Ku += kpq * u[q];
      }
      worst = std::max(worst, std::fabs(Ku - s.lambda[k] * u[p]));
    }
  }
  expect(worst < 1e-12, fmt("K u = lambda u for the eigenpairs of W^T D W (max residual %.1e)", worst));
}

// The fast spectrum (tridiagonalization + QR on a vector, when built with Eigen) against the Jacobi
// route with full eigenvectors: the same eigenvalues, |theta*_k|, P(theta*); and the identity
// P(0) = P(theta*) + 1/2 sum_k l_k theta*_k^2 (the normal equations).
void test_spectrum_routes() {
  for (double alpha : {0.7, 1.5}) {
    plrf::Config c;
    c.alpha = alpha, c.beta = 1.1, c.v = 90, c.d = 40, c.seed = 21;
    const plrf::Population pop(c.alpha, c.beta, c.v);
    const std::vector<double> W = plrf::features(c);
    std::vector<double> U;
    const plrf::Spectrum fast = plrf::spectrum(c, pop, W), slow = plrf::spectrum(c, pop, W, &U);
    double dl = 0, dt = 0, top = fast.lambda.back(), quad = 0;
    for (int64_t k = 0; k < c.d; ++k) {
      dl = std::max(dl, std::fabs(fast.lambda[k] - slow.lambda[k]));
      const double scale = std::fabs(slow.theta_star[k]) + 1e-300;
      dt = std::max(dt, std::fabs(std::fabs(fast.theta_star[k]) - std::fabs(slow.theta_star[k])) / scale);
      quad += 0.5 * fast.lambda[k] * fast.theta_star[k] * fast.theta_star[k];
    }
    const double dp = std::fabs(fast.loss_star - slow.loss_star) / slow.loss_star;
    const double id = std::fabs(fast.loss_star + quad - fast.loss_zero) / fast.loss_zero;
    expect(dl < 1e-12 * top && dt < 1e-6 && dp < 1e-8 && id < 1e-10,
           fmt("spectrum routes agree (alpha %.1f): |dl| %.1e, rel |d theta*| %.1e, rel dP* %.1e; P(0) = P* + 1/2 sum l theta*^2 to",
               alpha, dl, dt, dp) + fmt(" %.1e (relative)", id));
  }
}

void test_jacobi() {
  const int64_t n = 12;
  plrf::Rng rng(8);
  std::vector<double> A(n * n), A0, eval, V;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) A[i * n + j] = A[j * n + i] = rng.normal();
  A0 = A;
  plrf::detail::jacobi_eigen(A, n, eval, V);
  double worst = 0, ortho = 0;
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = 0; i < n; ++i) {
      double Av = 0, dot = 0;
      for (int64_t j = 0; j < n; ++j) Av += A0[i * n + j] * V[j * n + k], dot += V[j * n + i] * V[j * n + k];
      worst = std::max(worst, std::fabs(Av - eval[k] * V[i * n + k]));
      ortho = std::max(ortho, std::fabs(dot - (i == k)));
    }
  bool sorted = true;
  for (int64_t k = 1; k < n; ++k) sorted = sorted && eval[k - 1] <= eval[k];
  expect(worst < 1e-12 && ortho < 1e-12 && sorted,
         fmt("Jacobi fallback solver: |A v - l v| %.1e, |V^T V - I| %.1e, ascending", worst, ortho));
}

// The samplers against the exact E[P | W] (W fixed, the data streams varied), and each other.
void test_samplers_vs_expectation() {
  plrf::Config c;
  c.alpha = 1.0, c.beta = 1.5, c.v = 64, c.d = 16, c.lr = 0.6, c.seed = 1234;
  const plrf::Population pop(c.alpha, c.beta, c.v);
  const std::vector<double> W = plrf::features(c);
  const plrf::Spectrum s = plrf::spectrum(c, pop, W);
  for (int64_t batch : {1, 4}) {
    c.batch = batch;
    const int64_t steps = 300;
    const plrf::Curve exact = plrf::expected_curve(c, s, steps, 8);
    const size_t mid = exact.steps.size() / 2;
    std::vector<std::vector<double>> eig(exact.steps.size()), dir(exact.steps.size());
    for (int r = 0; r < 4000; ++r) {
      plrf::Config cr = c;
      cr.seed = 100000 + r;
      const plrf::Curve a = plrf::sgd_eigen(cr, s, steps, 8);
      for (size_t i = 0; i < a.loss.size(); ++i) eig[i].push_back(a.loss[i]);
      if (r < 1500) {
        const plrf::Curve b = plrf::sgd_direct(cr, pop, W, s, steps, 8);
        for (size_t i = 0; i < b.loss.size(); ++i) dir[i].push_back(b.loss[i]);
      }
    }
    for (size_t i : {mid, exact.steps.size() - 1}) {
      const double me = mean_of(eig[i]), se = sem_of(eig[i]), md = mean_of(dir[i]), sd = sem_of(dir[i]);
      const double ex = exact.loss[i];
      expect(std::fabs(me - ex) < 4 * se,
             fmt("eigen sampler, batch %.0f, step %.0f: mean loss %.6e vs E[P|W] %.6e", static_cast<double>(batch),
                 exact.steps[i], me, ex) + fmt(" [%.2f se]", (me - ex) / se));
      expect(std::fabs(md - ex) < 4 * sd,
             fmt("direct sampler, batch %.0f, step %.0f: mean loss %.6e vs E[P|W] %.6e", static_cast<double>(batch),
                 exact.steps[i], md, ex) + fmt(" [%.2f se]", (md - ex) / sd));
      expect(std::fabs(me - md) < 4 * std::sqrt(se * se + sd * sd),
             fmt("eigen vs direct sampler, batch %.0f, step %.0f: %.6e vs %.6e", static_cast<double>(batch), exact.steps[i], me, md));
    }
  }
  // The expectation decreases along training from P(0) towards (not below) P(theta*).
  c.batch = 1;
  const plrf::Curve long_run = plrf::expected_curve(c, s, 100000, 30);
  bool decreasing = true;
  for (size_t i = 1; i < long_run.loss.size(); ++i) decreasing = decreasing && long_run.loss[i] <= long_run.loss[i - 1];
  expect(decreasing && long_run.final_loss > s.loss_star && long_run.loss.front() < s.loss_zero,
         fmt("E[P|W] decreases from P(0) = %.4e towards P* = %.4e (after 1e5 steps %.4e)", s.loss_zero, s.loss_star,
             long_run.final_loss));
}

void test_declaration() {
  const scalinglab_plugin_table* t = scalinglab_plugin();
  expect(t && t->abi == SCALINGLAB_PLUGIN_ABI && t->count == 2 && scalinglab_plugin_abi() == SCALINGLAB_PLUGIN_ABI,
         "the C table: interface version and two measures");
  const scalinglab_measure_entry* e = find_measure("plrf.loss");
  const Sink ok = args(1.5, 2, 128, 16, 50).run(e, 1);
  bool all = ok.error.empty();
  for (const char* m : {"loss", "loss_best", "loss_zero", "flops", "diverged"}) all = all && ok.scalars.count(m);
  for (const char* m : {"curve_flops", "curve_loss"}) all = all && ok.series.count(m);
  all = all && ok.series.at("curve_flops").size() == ok.series.at("curve_loss").size() &&
        ok.series.at("curve_flops").back() == 16 * 50 && ok.scalars.at("flops") == 16 * 50;
  expect(all, "every declared metric is set; the curve ends at the compute spent, d x steps");
  const Sink refused = args(1.5, 2, 8, 16, 10).run(e, 1, e->check);
  expect(!refused.error.empty(), "check refuses v < d: " + refused.error);
  Call a = args(1.5, 2, 1024, 64, 1000);
  std::vector<const char*> np, tp;
  for (size_t i = 0; i < a.names.size(); ++i) np.push_back(a.names[i].c_str()), tp.push_back(a.texts[i].c_str());
  scalinglab_args sa{a.names.size(), np.data(), tp.data(), a.numbers.data(), 0};
  const double w = e->work(e->context, &sa), mem = e->memory(e->context, &sa);
  expect(w > 1024.0 * 64 * 64 && mem > 8.0 * 1024 * 64, fmt("work %.3g operations, memory %.3g bytes", w, mem));
  const std::vector<int64_t> marks = plrf::log_steps(1000, 10);
  bool increasing = marks.front() == 1 && marks.back() == 1000;
  for (size_t i = 1; i < marks.size(); ++i) increasing = increasing && marks[i] > marks[i - 1];
  expect(increasing, "log-spaced curve steps: distinct, from 1 to the last step");
}

}  // namespace

int main() {
  test_normals();
  test_features();
  test_loss_monte_carlo();
  test_one_step();
  test_loss_at_zero();
  test_seeds();
  test_theta_star();
  test_jacobi();
  test_spectrum_routes();
  test_samplers_vs_expectation();
  test_declaration();
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
