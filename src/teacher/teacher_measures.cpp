// The measures of the `teacher` world, declared once: the error bounds and the compute-optimal
// width (Sections 4.3-4.4, Appendix A).
#include "scalinglab/teacher/teacher_measures.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/teacher/error_bound.hpp"
#include "scalinglab/teacher/relu_network.hpp"
#include "scalinglab/teacher/relu_teacher.hpp"
#include "scalinglab/core/stats.hpp"

namespace scalinglab {

namespace {

using namespace teacher;

Record bound_run(const Params& prm, Stream&) {
  const double d = prm.real("d"), K = prm.real("K"), n = prm.real("n"), T = prm.real("T"), eps = prm.real("eps");
  Record r;
  try {
    r.set("corollary", corollary42(d, K, n, T));
    const MinimisedBound m = theorem41_minimised(d, K, n, T);
    r.set("theorem", m.value);
    r.set("eps_star", m.eps);
    const BoundTerms b = theorem41(d, K, n, T, eps > 0 ? eps : m.eps);
    r.set("estimation", b.estimation);
    r.set("misspecification", b.misspecification);
    r.set("theorem_at_eps", b.total());
    const double C_ref = prm.real("C_ref");
    r.set("optimum_ref", C_ref > 0 ? compute_optimal_width(d, K, C_ref).bound : NAN);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("teacher.bound: ") + e.what());
  }
  r.set("flops", d * n * T);
  return r;
}

Record optimum_run(const Params& prm, Stream&) {
  const double power = prm.real("misspecification_power");
  ComputeOptimalWidth o;
  try {
    o = compute_optimal_width(prm.real("d"), prm.real("K"), prm.real("C"), power);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("teacher.optimum: ") + e.what());
  }
  Record r;
  double slope = NAN;
  try {
    slope = frontier_local_slope(prm.real("d"), prm.real("K"), prm.real("C"), 0.05, power);
  } catch (const std::invalid_argument&) {  // C e^{-h} below the smallest budget: no local slope
  }
  r.set("n_star", o.n);
  r.set("T_star", o.T);
  r.set("parameters_star", prm.real("d") * o.n);
  r.set("bound", o.bound);
  r.set("n_upper", o.n_upper);
  r.set("n_upper_paper", o.n_upper_paper);
  r.set("n_lower", o.n_lower);
  r.set("n_lower_paper", o.n_lower_paper);
  r.set("local_slope", slope);
  return r;
}

// Atoms of a teacher drawn with truncation tol: about K ln(1/tol) sticks (a Poisson count), with
// four standard deviations of margin.
double teacher_atoms(double K, double tol) {
  const double a = K * std::log(1 / tol);
  return a + 4 * std::sqrt(a) + 2;
}

// Bytes of a teacher in d dimensions: its atoms, and per atom weight (with the vector's growth),
// sign and coefficient.
double teacher_bytes(double d, double K, double tol) { return teacher_atoms(K, tol) * (8 * d + 32); }

// Bytes of an alias table over the atoms, at its construction.
double alias_bytes(double K, double tol) { return 40 * teacher_atoms(K, tol); }

Record moments_run(const Params& prm, Stream& stream) {
  const auto d = static_cast<std::size_t>(prm.integer("d"));
  const double K = prm.real("K");
  Stream teacher_stream = stream.substream(0), x_stream = stream.substream(1), draw_stream = stream.substream(2);
  TeacherOptions options;
  options.dp_factor = prm.real("dp_factor");
  options.sign_p = prm.real("sign_p");
  const ReluTeacher f = sample_teacher(d, K, teacher_stream, prm.real("tol"), options);
  const auto samples = static_cast<std::size_t>(prm.integer("samples"));
  std::vector<double> x(d);
  double sum = 0, sum_sq = 0;
  for (std::size_t t = 0; t < samples; ++t) {
    for (auto& v : x) v = x_stream.normal();
    const double y = f(x.data());
    sum += y, sum_sq += y * y;
  }
  double weight_sq = 0;
  for (double w : f.weight) weight_sq += w * w;
  // Distinct atoms among `draws` i.i.d. draws from theta-bar (Chinese restaurant: sum_{i<n} K/(K+i)).
  const auto draws = static_cast<std::size_t>(prm.integer("draws"));
  const ConstrainedPredictor g = sample_predictor(f, draws, draw_stream);
  std::vector<uint32_t> idx = g.index;
  std::sort(idx.begin(), idx.end());
  const auto distinct = static_cast<double>(std::unique(idx.begin(), idx.end()) - idx.begin());
  double expected = 0;
  for (std::size_t i = 0; i < draws; ++i) expected += K / (K + static_cast<double>(i));
  Record r;
  r.set("mean", sum / static_cast<double>(samples));
  r.set("second_moment", sum_sq / static_cast<double>(samples));
  r.set("atoms", static_cast<double>(f.size()));
  r.set("weight_sq", weight_sq);
  r.set("distinct", distinct);
  r.set("distinct_expected", expected);
  return r;
}

// Bytes of one teacher.moments run: the teacher, the alias table, and `draws` atoms copied with sign and index.
double moments_bytes(const Params& prm) {
  const double d = prm.real("d"), K = prm.real("K"), tol = prm.real("tol");
  return teacher_bytes(d, K, tol) + alias_bytes(K, tol) + prm.real("draws") * (8 * d + 16) + 8 * d;
}

// The width and cover radius of a teacher.misspecification run: n and eps as given, or with C > 0 the
// compute-optimal width n* of Corollary 4.2 at budget C (rounded) and the radius of the corollary's
// proof, eps^2 = n K ln(1 + n/K) / (4 T* (K+1)), T* = C / (d n*).
std::pair<double, double> misspecification_setting(const Params& prm) {
  const double C = prm.real("C");
  if (!(C > 0)) return {prm.real("n"), prm.real("eps")};
  const double d = prm.real("d"), K = prm.real("K");
  ComputeOptimalWidth o;
  try {
    o = compute_optimal_width(d, K, C);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("teacher.misspecification: ") + e.what());
  }
  const double n = std::max(1.0, std::round(o.n));
  const double eps = std::sqrt(n * K * std::log1p(n / K) / (4 * o.T * (K + 1)));
  if (!(eps <= 2)) throw InputError("teacher.misspecification: the frontier's eps exceeds 2 at C = " + prm.entry("C").text);
  return {n, eps};
}

Record misspecification_run(const Params& prm, Stream& stream) {
  const auto d = static_cast<std::size_t>(prm.integer("d"));
  const double K = prm.real("K");
  const auto [n_real, eps] = misspecification_setting(prm);
  const auto n = static_cast<std::size_t>(n_real);
  Stream teacher_stream = stream.substream(0), x_stream = stream.substream(1), draw_stream = stream.substream(2);
  const ReluTeacher f = sample_teacher(d, K, teacher_stream, prm.real("tol"));
  const std::string& q = prm.choice("quantiser");
  const Quantiser quantiser = q == "atom" ? Quantiser::atom : q == "nearest" ? Quantiser::nearest : Quantiser::draw;
  const Sampling sampling = prm.choice("sampling") == "uniform" ? Sampling::uniform : Sampling::theta;
  // Draws of one atom share its quantised point unless each draw is quantised on its own: then one
  // entry per atom, weighted by its count, computes the same function at the cost of the teacher.
  const bool merge = prm.flag("merge_draws");
  if (merge && quantiser == Quantiser::draw) throw InputError("teacher.misspecification: merge_draws needs one quantised point per atom, not quantiser = draw");
  const ConstrainedPredictor exact = sample_predictor(f, n, draw_stream, merge, sampling);
  ConstrainedPredictor quantised = exact;
  quantise(quantised, eps, draw_stream, quantiser);
  const auto samples = static_cast<std::size_t>(prm.integer("samples"));
  std::vector<double> x(d);
  double mse0 = 0, mse = 0, mseq = 0, kl = 0, kl0 = 0;
  for (std::size_t t = 0; t < samples; ++t) {
    for (auto& v : x) v = x_stream.normal();
    const double y = f(x.data()), y0 = exact(x.data()), ye = quantised(x.data());
    mse0 += (y - y0) * (y - y0);
    mse += (y - ye) * (y - ye);
    mseq += (y0 - ye) * (y0 - ye);
    kl += bernoulli_logit_kl(y, ye);
    kl0 += bernoulli_logit_kl(y, y0);
  }
  const double m = static_cast<double>(samples), nn = static_cast<double>(n), dd = static_cast<double>(d);
  Record r;
  r.set("mse_exact", mse0 / m);
  r.set("mse", mse / m);
  r.set("mse_quant", mseq / m);
  r.set("kl", kl / m);
  r.set("kl_exact", kl0 / m);
  r.set("mse_exact_bound", (K + 1) / nn);                          // Lemma A.2
  r.set("kl_exact_bound", (K + 1) / nn);                           // Lemma A.3
  r.set("mse_quant_bound", dd * (K + 1) * eps * eps / nn);         // Lemma A.4
  r.set("mse_bound", 2 * (K + 1) * (1 + dd * eps * eps) / nn);     // Lemmas A.2 + A.4
  r.set("kl_bound", 3 * K * (1 + dd * eps * eps) / nn);            // Lemma A.5
  r.set("n_used", nn);
  r.set("eps_used", eps);
  return r;
}

// Bytes of one teacher.misspecification run: the teacher, the alias table, and the exact and
// quantised predictors' entries: n, or with merge_draws at most one per teacher atom (and a count
// per atom).
double misspecification_bytes(const Params& prm) {
  const double d = prm.real("d"), K = prm.real("K"), tol = prm.real("tol");
  double n = prm.real("n");
  try {
    n = misspecification_setting(prm).first;
  } catch (const InputError&) {  // reported when the run starts
  }
  const double entries = prm.flag("merge_draws") ? std::min(n, teacher_atoms(K, tol)) : n;
  return teacher_bytes(d, K, tol) + alias_bytes(K, tol) + 8 * teacher_atoms(K, tol) + 2 * entries * (8 * d + 12) + 16 * d;
}

// F at the rows of X (m x d), by one product with the atoms: sqrt(K+1) ReLU(X atoms^T) (sign theta-bar).
Eigen::VectorXd teacher_outputs(const ReluTeacher& f, const Eigen::MatrixXd& X) {
  const auto A = static_cast<Eigen::Index>(f.size()), d = static_cast<Eigen::Index>(f.d);
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> atoms(f.atoms.data(), A, d);
  Eigen::VectorXd coef(A);
  for (Eigen::Index k = 0; k < A; ++k)
    coef[k] = f.scale * f.sign[static_cast<std::size_t>(k)] * f.weight[static_cast<std::size_t>(k)];
  Eigen::VectorXd out(X.rows());
  constexpr Eigen::Index kBlock = 256;  // bounded memory, reused: blocks of 256 inputs
  Eigen::MatrixXd Z;
  for (Eigen::Index r = 0; r < X.rows(); r += kBlock) {
    const Eigen::Index h = std::min(kBlock, X.rows() - r);
    Z.noalias() = X.middleRows(r, h) * atoms.transpose();
    out.segment(r, h).noalias() = Z.cwiseMax(0.0) * coef;
  }
  return out;
}

Eigen::MatrixXd gaussian_inputs(std::size_t m, std::size_t d, Stream& s) {
  Eigen::MatrixXd X(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(d));
  s.fill_normal(X.data(), m * d, 1.0);
  return X;
}

// The learner's parameters: out of the lab's stream key (same_world), so every width, budget and
// optimiser setting of run r sees the same teacher and test inputs; the learner's own draws (training
// data, initialisation, order) come from a stream mixed with these parameters' values.
const std::vector<std::string>& learner_param_names() {
  static const std::vector<std::string> names = {"n", "T", "C", "batch", "epochs", "optimizer", "lr", "teacher"};
  return names;
}

Stream learner_stream(const Params& prm, const Stream& stream) {
  std::string text;
  for (const auto& name : learner_param_names()) text += name + "=" + prm.entry(name).text + " ";
  return Stream(mix64(stream.substream(5).key() ^ stable_hash(text)));
}

// Work of the teacher measures, in multiply-adds: an evaluation of the teacher costs d per atom, one
// of a width-n predictor or network d per unit (forward and backward: about 6).
double moments_work(const Params& prm) {
  const double d = prm.real("d");
  return prm.real("samples") * d * (teacher_atoms(prm.real("K") * prm.real("dp_factor"), prm.real("tol")) + 1) +
         prm.real("draws") * 20;
}

double misspecification_work(const Params& prm) {
  const double d = prm.real("d"), atoms = teacher_atoms(prm.real("K"), prm.real("tol"));
  double n = prm.real("n");
  try {
    n = misspecification_setting(prm).first;
  } catch (const InputError&) {  // reported when the run starts
  }
  const double entries = prm.flag("merge_draws") ? std::min(n, atoms) : n;
  return prm.real("samples") * d * (atoms + 2 * entries) + 20 * n;
}

double train_work(const Params& prm) {
  const double d = prm.real("d"), n = prm.real("n"), T = prm.real("T");
  const double atoms = teacher_atoms(prm.real("K"), prm.real("tol"));
  return prm.real("epochs") * T * n * d * 6 + (T + prm.real("test")) * d * (atoms + n);
}

Record train_run(const Params& prm, Stream& stream) {
  const auto d = static_cast<std::size_t>(prm.integer("d"));
  const auto n = static_cast<std::size_t>(prm.integer("n"));
  const auto T = static_cast<std::size_t>(prm.real("T"));
  const auto batch = static_cast<std::size_t>(std::min<double>(prm.real("batch"), static_cast<double>(T)));
  const auto epochs = prm.integer("epochs");
  if (T < 1 || n < 1) throw InputError("teacher.train: need n >= 1 and T >= 1");
  set_blas_threads(1);  // the network's products are small: threads cost more than they give
  // A shared teacher (the default) depends only on the world's parameters (seed, d, K, tol, test) and
  // the run index: run r of every grid point (every budget and width) learns the same teacher draw and
  // is tested on the same inputs, so the isoFLOP curves compare like with like. `own`: each task its own.
  const Stream learner = learner_stream(prm, stream);
  const bool shared = prm.choice("teacher") == "shared";
  Stream teacher_stream = shared ? stream.substream(0) : learner.substream(3),
         test_stream = shared ? stream.substream(4) : learner.substream(4);
  Stream data_stream = learner.substream(0), init_stream = learner.substream(1), order_stream = learner.substream(2);
  const ReluTeacher f = sample_teacher(d, prm.real("K"), teacher_stream, prm.real("tol"));
  // The training set: T inputs and their Bernoulli(sigmoid(F)) labels.
  const Eigen::MatrixXd X = gaussian_inputs(T, d, data_stream);
  const Eigen::VectorXd F = teacher_outputs(f, X);
  Eigen::VectorXf Y(static_cast<Eigen::Index>(T));
  for (std::size_t t = 0; t < T; ++t) Y[static_cast<Eigen::Index>(t)] = data_stream.uniform() < 1 / (1 + std::exp(-F[static_cast<Eigen::Index>(t)])) ? 1.0f : 0.0f;
  const MatrixRF Xf = X.cast<float>();
  ReluNetwork net(d, n, init_stream);
  NetworkOptimizer opt;
  opt.adam = prm.choice("optimizer") == "adam";
  opt.lr = static_cast<float>(prm.real("lr"));
  std::vector<uint32_t> order(T);
  for (std::size_t t = 0; t < T; ++t) order[t] = static_cast<uint32_t>(t);
  MatrixRF Xb;
  VectorF Yb;
  double last_epoch_loss = 0, online_kl = 0;
  long steps = 0;
  for (int64_t e = 0; e < epochs; ++e) {
    if (e > 0)  // reshuffle after the first pass
      for (std::size_t i = T; i > 1; --i) std::swap(order[i - 1], order[order_stream.below(i)]);
    double epoch_loss = 0;
    for (std::size_t start = 0; start < T; start += batch) {
      const std::size_t b = std::min(batch, T - start);
      Xb.resize(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(d));
      Yb.resize(static_cast<Eigen::Index>(b));
      for (std::size_t i = 0; i < b; ++i) {
        Xb.row(static_cast<Eigen::Index>(i)) = Xf.row(order[start + i]);
        Yb[static_cast<Eigen::Index>(i)] = Y[order[start + i]];
      }
      epoch_loss += net.train_step(Xb, Yb, opt) * static_cast<double>(b);
      if (e == 0) {  // the online predictions of the first pass: each made before its batch's update
        const VectorF& fb = net.last_outputs();
        for (std::size_t i = 0; i < b; ++i) online_kl += bernoulli_logit_kl(F[order[start + i]], fb[static_cast<Eigen::Index>(i)]);
      }
      ++steps;
    }
    last_epoch_loss = epoch_loss / static_cast<double>(T);
  }
  // Reducible error on fresh inputs: E_X[KL(sigmoid(F(X)) || sigmoid(f(X)))], with its standard error.
  const auto m = static_cast<std::size_t>(prm.integer("test"));
  const Eigen::MatrixXd Xt = gaussian_inputs(m, d, test_stream);
  const Eigen::VectorXd Ft = teacher_outputs(f, Xt);
  const VectorF ft = net.predict(Xt.cast<float>());
  Summary kl;
  double kl_half = 0;
  for (std::size_t i = 0; i < m; ++i) {
    kl.add(bernoulli_logit_kl(Ft[static_cast<Eigen::Index>(i)], ft[static_cast<Eigen::Index>(i)]));
    kl_half += bernoulli_logit_kl(Ft[static_cast<Eigen::Index>(i)], 0.0);
  }
  Record r;
  r.set("kl_online", online_kl / static_cast<double>(T));
  r.set("kl_half", kl_half / static_cast<double>(m));
  r.set("kl", kl.mean);
  r.set("kl_test_sem", kl.sem());
  r.set("train_loss", last_epoch_loss);
  r.set("steps", static_cast<double>(steps));
  r.set("flops", static_cast<double>(d) * static_cast<double>(n) * static_cast<double>(T));
  r.set("diverged", std::isfinite(kl.mean) ? 0.0 : 1.0);
  return r;
}

// Bytes of one teacher.train run: the teacher and its outputs on blocks of 256 inputs, the T
// training inputs (double and float), outputs, labels and order, the network with its gradient and
// Adam moments, a batch's activations, and the test inputs with their hidden layer (m x n).
double train_bytes(const Params& prm) {
  const double d = prm.real("d"), K = prm.real("K"), tol = prm.real("tol"), n = prm.real("n"), T = prm.real("T");
  const double batch = std::min(prm.count("batch"), T), m = prm.real("test");
  const double moments = prm.choice("optimizer") == "adam" ? 2 : 0;
  return teacher_bytes(d, K, tol) + 2056 * teacher_atoms(K, tol) + T * (12 * d + 16) + 4 * n * (d + 1) * (2 + moments) +
         4 * batch * (n + d + 2) + m * (12 * d + 4 * n + 12) + kProductWorkspaceBytes;
}

std::vector<ParamSpec> model_params() {
  return {int_param("d", "10", "input dimension", 1, 1e6), real_param("K", "100", "Dirichlet-process scale", 2, 1e15)};
}

}  // namespace

void register_teacher_measures(Registry& reg) {
  {
    Measure m;
    m.name = "teacher.train";
    m.summary = "a two-layer ReLU network of width n trained on T samples of a teacher draw: its reducible error (KL)";
    m.details =
        "Beyond the paper. One teacher (as teacher.moments), T inputs X ~ N(0, I_d) with labels Y ~ Bernoulli(sigmoid(F(X))),\n"
        "a network f(x) = sum_i a_i ReLU(w_i^T x) (W ~ N(0, 1/d), a ~ N(0, 1/n); float32) trained on the logistic loss in\n"
        "consecutive batches for `epochs` passes (reshuffled after the first), Adam (betas 0.9, 0.999, eps 1e-8) or SGD.\n"
        "kl_online = (1/T) sum_t KL(Bern(sigmoid F(X_t)) || Bern(sigmoid f_t(X_t))) over the first pass, f_t the network\n"
        "before the update of the batch holding t: the paper's time-averaged error L_T. kl = the same KL of the final\n"
        "network on `test` fresh inputs (kl_test_sem: its standard error over those inputs); kl_half: the constant-1/2\n"
        "predictor's. teacher = shared: run r of every grid point learns the same teacher. flops = d n T, the paper's FLOP\n"
        "count. T may be a formula, e.g. C/(d*n).";
    m.params = model_params();
    m.params.push_back(int_param("n", "64", "width of the network", 1, 1e8).allow_expression());
    m.params.push_back(real_param("T", "10000", "training samples; formula allowed, e.g. C/(d*n)", 1, 1e9).allow_expression());
    m.params.push_back(real_param("C", "0", "FLOP budget, for formulas of T or n", 0, 1e30));
    m.params.push_back(count_param("batch", "64", "batch size"));
    m.params.push_back(int_param("epochs", "1", "passes over the T samples", 1, 1e6));
    m.params.push_back(choice_param("optimizer", "adam", {"adam", "sgd"}, "optimizer"));
    m.params.push_back(real_param("lr", "1e-3", "learning rate", 0, 1e6));
    m.params.push_back(int_param("test", "10000", "fresh inputs for the reducible error", 1, 1e9));
    m.params.push_back(real_param("tol", "1e-9", "stick-breaking truncation", 1e-300, 0.5));
    m.params.push_back(choice_param("teacher", "shared", {"shared", "own"},
                                    "shared: run r of every grid point draws the same teacher and test inputs (keyed by seed, d, K, tol, r); own: per task"));
    for (auto& p : m.params)
      if (std::find(learner_param_names().begin(), learner_param_names().end(), p.name) != learner_param_names().end())
        p.same_world_param();
    m.metrics = {{"kl_online", "the paper's error: (1/T) sum_t KL(sigmoid F(X_t) || sigmoid f_t(X_t)) over the first pass, f_t the network before the batch of t"},
                 {"kl_half", "E_X[KL(sigmoid F || 1/2)] on the test inputs: the constant-1/2 predictor's error"},
                 {"kl", "reducible error E_X[KL(sigmoid F || sigmoid f)] of the final network on fresh inputs"},
                 {"kl_test_sem", "standard error of kl over the test inputs"},
                 {"train_loss", "mean logistic loss over the last epoch"},
                 {"steps", "optimizer steps"},
                 {"flops", "d n T"},
                 {"diverged", "1 if the reducible error is not finite"}};
    m.fn = train_run;
    m.memory = train_bytes;
    m.work = train_work;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "teacher.moments";
    m.summary = "one draw of the infinite-width ReLU teacher (Sec. 4.1): Monte-Carlo moments of F(X), Dirichlet-process statistics";
    m.details =
        "theta-bar ~ DP(K, uniform(S^{d-1})) by stick-breaking (truncated when the mass left is below tol; the remainder\n"
        "goes to a last atom), signs +-1, F(x) = sqrt(K+1) sum_w theta_w ReLU(w^T x), X ~ N(0, I_d). Per run: the means of\n"
        "F(X) and F(X)^2 over `samples` inputs (the paper: E[F] = 0, E[F^2] = 1/2 over teacher and X), sum_w theta-bar_w^2\n"
        "(expectation 1/(K+1)), and the distinct atoms among `draws` i.i.d. draws from theta-bar (expectation\n"
        "sum_{i<draws} K/(K+i)). Counterfactual teachers: dp_factor != 1 draws theta-bar from DP(dp_factor K) but keeps\n"
        "the scale sqrt(K+1) (E[F^2] = (K+1)/(2(dp_factor K + 1))); sign_p != 1/2 biases the signs (E[F] != 0).";
    m.params = model_params();
    m.params.push_back(int_param("samples", "10000", "inputs X per run", 1, 1e10));
    m.params.push_back(int_param("draws", "1000", "draws from theta-bar for the distinct-atom count", 1, 1e9));
    m.params.push_back(real_param("tol", "1e-9", "stick-breaking truncation: mass left unbroken", 1e-300, 0.5));
    m.params.push_back(real_param("dp_factor", "1", "the Dirichlet process's concentration is dp_factor K, F's scale stays sqrt(K+1) (1: the paper)", 1e-3, 1e3));
    m.params.push_back(real_param("sign_p", "0.5", "probability that theta_w = +theta-bar_w (0.5: the paper)", 0, 1));
    m.metrics = {{"mean", "mean of F(X) over the inputs"},
                 {"second_moment", "mean of F(X)^2 over the inputs"},
                 {"atoms", "atoms of the truncated teacher"},
                 {"weight_sq", "sum of theta-bar_w^2 (expectation 1/(K+1))"},
                 {"distinct", "distinct atoms among `draws` draws from theta-bar"},
                 {"distinct_expected", "sum_{i<draws} K/(K+i)"}};
    m.fn = moments_run;
    m.memory = moments_bytes;
    m.work = moments_work;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "teacher.misspecification";
    m.summary = "misspecification error of the width-n predictor F~_{n,eps} (Sec. 4.2) against Lemmas A.2-A.5";
    m.details =
        "One teacher, n atoms drawn i.i.d. from Categorical(theta-bar), F~_{n,0} and its eps-quantisation F~_{n,eps}: each\n"
        "teacher atom moved to its nearest point of the cubic lattice of spacing 2 eps/sqrt(d), an eps-cover (nearest), or\n"
        "to a point at distance exactly eps in a random direction (atom), shared by its draws; see docs/teacher.md.\n"
        "With C > 0: n = n*(C), eps = Corollary 4.2's radius (the compute frontier). Monte-Carlo over\n"
        "`samples` inputs: mse_exact = E[(F - F~_{n,0})^2] (Lemma A.2: <= (K+1)/n), mse_quant = E[(F~_{n,0} - F~_{n,eps})^2]\n"
        "(Lemma A.4: <= d(K+1)eps^2/n), mse = E[(F - F~_{n,eps})^2]\n"
        "(A.2 + A.4: <= 2(K+1)(1 + d eps^2)/n), kl = E[KL(Bern(sigmoid F) || Bern(sigmoid F~_{n,eps}))] (Lemma A.5:\n"
        "<= 3K(1 + d eps^2)/n). The lemmas bound expectations over the teacher too: average over runs.";
    m.params = model_params();
    m.params.push_back(int_param("n", "100", "width of the predictor (ignored when C > 0)", 1, 1e9));
    m.params.push_back(real_param("eps", "0", "quantisation radius (ignored when C > 0)", 0, 2));
    m.params.push_back(real_param("C", "0", "a FLOP budget: when > 0, n = n*(C) of Corollary 4.2 and eps its proof's radius", 0, 1e30));
    m.params.push_back(choice_param("quantiser", "atom", {"atom", "nearest", "draw"},
                                    "nearest: each teacher atom to its nearest point of an eps-cover (the lattice (2 eps/sqrt(d)) Z^d); "
                                    "atom: each atom moved by exactly eps, one random point per atom; draw: one per draw"));
    m.params.push_back(choice_param("sampling", "theta", {"theta", "uniform"},
                                    "theta: the n atoms drawn from Categorical(theta-bar) (the paper); uniform: uniformly among the "
                                    "teacher's atoms, ignoring its weights (a counterfactual)")
                           .same_world_param());
    m.params.push_back(bool_param("merge_draws", "false",
                                  "evaluate the draws of one teacher atom as one entry weighted by their count: the same function, "
                                  "at the cost of the teacher whatever n (not with quantiser = draw)")
                           .implementation_switch());
    m.params.push_back(int_param("samples", "10000", "inputs X per run", 1, 1e10));
    m.params.push_back(real_param("tol", "1e-9", "stick-breaking truncation", 1e-300, 0.5));
    m.metrics = {{"mse_exact", "E[(F - F~_{n,0})^2] over X"},
                 {"mse", "E[(F - F~_{n,eps})^2] over X"},
                 {"mse_quant", "E[(F~_{n,0} - F~_{n,eps})^2] over X"},
                 {"kl", "E[KL(Bern(sigmoid F) || Bern(sigmoid F~_{n,eps}))] over X"},
                 {"kl_exact", "E[KL(Bern(sigmoid F) || Bern(sigmoid F~_{n,0}))] over X"},
                 {"mse_exact_bound", "(K+1)/n (Lemma A.2)"},
                 {"kl_exact_bound", "(K+1)/n (Lemma A.3)"},
                 {"mse_quant_bound", "d(K+1) eps^2/n (Lemma A.4)"},
                 {"mse_bound", "2(K+1)(1 + d eps^2)/n (Lemmas A.2, A.4)"},
                 {"kl_bound", "3K(1 + d eps^2)/n (Lemma A.5)"},
                 {"n_used", "the width used (n, or n*(C))"},
                 {"eps_used", "the radius used (eps, or Corollary 4.2's at (n*, T*))"}};
    m.fn = misspecification_run;
    m.memory = misspecification_bytes;
    m.work = misspecification_work;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "teacher.bound";
    m.summary = "upper bounds on the loss of the width-n constrained predictor after T samples (Thm 4.1, Cor 4.2)";
    m.details =
        "Jeon & Van Roy, Sec. 4.3. theorem: Theorem 4.1 minimised over eps in (0, 1] (the stationary point\n"
        "eps^2 = n ln(1 + n/K) / (6T), clipped; eps_star), corollary: Corollary 4.2's closed form\n"
        "d K ln(1 + n/K)(ln(e 36 T K) + (2/d) ln(2n)) / (2T) + 3K/n (n >= 3, K >= 2). estimation and\n"
        "misspecification are Theorem 4.1's two terms at eps (eps = 0: at eps_star). flops = d n T.";
    m.params = model_params();
    m.params.push_back(real_param("n", "1000", "width of the constrained predictor (n >= 3 for the corollary)", 1, 1e18));
    m.params.push_back(real_param("T", "1e6", "number of samples; formula allowed, e.g. C/(d*n)", 1, 1e30).allow_expression());
    m.params.push_back(real_param("eps", "0", "cover radius for estimation/misspecification (0: eps_star)", 0, 1));
    m.params.push_back(real_param("C", "0", "FLOP budget, for formulas of T (not used otherwise)", 0, 1e40));
    m.params.push_back(real_param("C_ref", "0", "a reference budget for optimum_ref (0: none)", 0, 1e40));
    m.metrics = {{"corollary", "Corollary 4.2"},
                 {"theorem", "Theorem 4.1 minimised over eps in (0, 1]"},
                 {"eps_star", "the minimising eps"},
                 {"estimation", "Theorem 4.1's estimation term at eps"},
                 {"misspecification", "Theorem 4.1's misspecification term at eps"},
                 {"theorem_at_eps", "Theorem 4.1 at eps"},
                 {"optimum_ref", "Corollary 4.2 at the compute-optimal allocation of the budget C_ref (NaN without C_ref)"},
                 {"flops", "d n T"}};
    m.fn = bound_run;
    m.deterministic = true;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "teacher.optimum";
    m.summary = "compute-optimal width n* and data T* minimising Corollary 4.2 under d n T = C (Theorem 4.3)";
    m.details =
        "Jeon & Van Roy, Sec. 4.4 and Appendix A.2. n real in [3, C/d], T = C/(d n); a scan of log n, then Brent's method.\n"
        "n_upper and n_lower bracket n* (Theorem 4.3's proof, re-derived, see docs/teacher.md); n_upper_paper = sqrt(3C)/d\n"
        "and n_lower_paper are the appendix's (not bounds when n* < K, resp. for larger d). parameters_star = d n* against T_star is Figure 1 (right).\n"
        "misspecification_power != 1 minimises the bound with 3K/n^power instead of 3K/n (the brackets stay those of power 1).";
    m.params = model_params();
    m.params.push_back(real_param("C", "1e12", "FLOP budget d n T", 1, 1e40));
    m.params.push_back(real_param("misspecification_power", "1",
                                  "the misspecification term is 3K/n^power (1: Corollary 4.2; other values: counterfactuals)", 0.1, 10));
    m.metrics = {{"n_star", "compute-optimal width"},
                 {"T_star", "compute-optimal number of samples C/(d n*)"},
                 {"parameters_star", "d n*"},
                 {"bound", "Corollary 4.2 at (n*, T*)"},
                 {"n_upper", "an upper bracket of n*: root of C = d^2 n^3 (2 ln(36K) + 1)/(6(K + n)), in [3, C/d]"},
                 {"n_upper_paper", "Appendix A.2's upper bracket sqrt(3C)/d (not a bound when n* < K)"},
                 {"n_lower", "a lower bracket of n*: root of C = (d n^2/6)(d(1 + ln(36KC)) + 2 ln(2n))(1 + ln(1 + n/K)), in [3, C/d]"},
                 {"n_lower_paper", "Appendix A.2's lower bracket: root of C = d n^2 ln(2n) ln(36 K C), in [3, C/d] (not a bound for larger d)"},
                 {"local_slope", "d log n* / d log T* at C (central differences over C e^-0.05 .. C e^0.05; Fig. 1 right: tends to 1)"}};
    m.fn = optimum_run;
    m.deterministic = true;
    reg.add(std::move(m));
  }
}

}  // namespace scalinglab
