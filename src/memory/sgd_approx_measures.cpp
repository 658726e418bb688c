// memory.sgd_approx and memory.sgd_approx_iterates: Section 4's approximation of SGD (eqs. 19-20,
// Appendix A.11 eq. 56), declared once so that sweeps can overlay "SGD" (memory.train) and "its
// approximation" (Figures 4, 5, 13). The maths is in sgd_approx.cpp; conventions in docs/memory.md,
// "Approximation of SGD (Section 4)".
#include "scalinglab/memory/sgd_approx_measures.hpp"
#include "scalinglab/memory/memory_measures.hpp"

#include <algorithm>
#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/stats.hpp"
#include "scalinglab/memory/memory_error.hpp"
#include "scalinglab/memory/sgd_approx.hpp"
#include "scalinglab/memory/zipf_task.hpp"

namespace scalinglab {

namespace {

using namespace memory;

// Substreams of a run's stream: the same layout as memory.error (memory_measures.cpp), so that data,
// embeddings and labels never shift one another.
enum : uint64_t { kDataStream = 0, kEmbeddingStream = 1, kLabelStream = 2 };


// A finite count of samples (or, with `at_most`, a batch: one larger than the T samples is one
// batch of all of them, however large it is written).
uint64_t finite_count(const Params& prm, const std::string& name, uint64_t at_most = UINT64_MAX) {
  const double v = prm.count(name);
  if (std::isinf(v))
    throw InputError("memory.sgd_approx: " + name + "=inf is not supported (the approximation follows a finite " +
                     "number of SGD steps); give a finite " + name);
  if (at_most != UINT64_MAX && v >= static_cast<double>(at_most)) return at_most;
  return static_cast<uint64_t>(prm.integer(name));  // below 9.2e18, or a sentence
}

// Bytes of one memory.sgd_approx run: per input the task (20), counts, alias sampler and sort
// order (48), the batch's touched inputs, the error's embeddings and products (as memory.error),
// and the series q.
double sgd_approx_bytes(const Params& prm) {
  const double N = prm.real("N"), M = prm.real("M"), d = prm.real("d");
  const double touched = std::min({prm.count("batch"), prm.count("T"), N});  // distinct inputs of a batch
  const double buffers = error_buffer_bytes(N, M, d, N * d <= kMaterialisedEntries);
  return 68 * N + 4 * touched + buffers + series_bytes(prm, N);
}

// Work of one memory.sgd_approx run: the T samples (or, expected counts, the iterations of f up to
// the largest count, at most T), ceil(T/batch) steps over the batch's distinct inputs (expected
// counts: over every input), and the error of W_q (N d draws and products with M classes).
double sgd_approx_work(const Params& prm) {
  const double N = prm.real("N"), M = prm.real("M"), d = prm.real("d");
  const double T = prm.count("T"), batch = std::max(prm.count("batch"), 1.0);
  if (std::isinf(T) || std::isinf(batch)) return 0;  // refused by the run with its own sentence
  const double steps = std::ceil(T / batch);
  const bool expected = prm.choice("counts") == "expected";
  const double updates = batch <= 1 ? T : steps * (expected ? N : std::min(batch, N));
  return (expected ? N : T) + updates + N * d * (2 * M + 20);
}

Record sgd_approx_run(const Params& prm, Stream& stream) {
  const auto N = static_cast<std::size_t>(prm.integer("N"));
  const auto M = static_cast<std::size_t>(prm.integer("M"));
  const auto d = static_cast<std::size_t>(prm.integer("d"));
  const double lr = prm.real("lr");
  const uint64_t T = finite_count(prm, "T");
  const uint64_t batch = finite_count(prm, "batch", T);

  Stream label_stream = stream.substream(kLabelStream);
  const ZipfTask task = make_zipf_task(N, M, prm.real("alpha"), prm.choice("f"), label_stream);
  std::vector<double> q;
  if (prm.choice("counts") == "expected") {
    q = sgd_approx_weights_expected(task.p, T, lr, M, batch);
  } else {
    Stream data = stream.substream(kDataStream);
    q = sgd_approx_weights_sampled(task.p, T, lr, M, batch, data);
  }
  double unstored = 0;
  for (std::size_t x = 0; x < N; ++x)
    if (q[x] == 0) unstored += task.p[x];

  const EmbeddingDist e_dist = parse_embedding_dist(prm.choice("e_dist"));
  const EmbeddingDist u_dist = parse_embedding_dist(prm.choice("u_dist"));
  const Stream embeddings = stream.substream(kEmbeddingStream);
  thread_local ErrorWorkspace ws;
  double error;
  if (static_cast<double>(N) * static_cast<double>(d) > kMaterialisedEntries) {
    error = memory_error_streamed(task, q, d, e_dist, u_dist, embeddings, ws);
  } else {
    thread_local Embeddings storage;
    Stream es = embeddings;
    draw_embeddings(N, M, d, e_dist, u_dist, es, storage);
    error = memory_error(task, q, storage, ws);
  }
  Record r;
  r.set("error", error);
  r.set("unstored_mass", unstored);
  r.set("updates", static_cast<double>((T + batch - 1) / batch));
  r.set_series("q", std::move(q));
  return r;
}

// Bytes of one memory.sgd_approx_iterates run: three series of n_max + 1 values.
double sgd_approx_iterates_bytes(const Params& prm) { return series_bytes(prm, 3 * (prm.real("n_max") + 1)); }

Record sgd_approx_iterates_run(const Params& prm, Stream&) {
  const auto M = static_cast<std::size_t>(prm.integer("M"));
  const double lr = prm.real("lr");
  const auto n_max = static_cast<uint64_t>(prm.integer("n_max"));
  const bool saturating = prm.flag("saturation");
  std::vector<double> value = sgd_approx_iterates(n_max, lr, M);
  std::vector<double> n(n_max + 1), flow(n_max + 1);
  const double first_step = lr * static_cast<double>(M - 1) / static_cast<double>(M);  // f(0) - 0
  for (uint64_t i = 0; i <= n_max; ++i) {
    n[i] = static_cast<double>(i);
    flow[i] = saturating ? sgd_approx_flow(n[i], lr, M) : first_step * n[i];
    if (!saturating) value[i] = first_step * n[i];
  }
  Record r;
  r.set("last", value.back());
  r.set_series("n", std::move(n));
  r.set_series("value", std::move(value));
  r.set_series("flow", std::move(flow));
  return r;
}

// Figure 5 (right): q_gamma(x) = f^{n_x}(0) for counts n_x = floor(n_min ((N + s) / (x + s))^alpha),
// x = 1..N (the paper: n_x proportional to (x + 3)^-alpha, n_N = 1), and the exponent rho of the
// scheme q_rho = p^rho that it resembles, fitted by least squares of log q on log n_x.
Record sgd_approx_scheme_run(const Params& prm, Stream&) {
  const auto N = static_cast<std::size_t>(prm.integer("N"));
  const auto M = static_cast<std::size_t>(prm.integer("M"));
  const double alpha = prm.real("alpha"), shift = prm.real("shift"), lr = prm.real("lr");
  const auto n_min = static_cast<double>(prm.integer("n_min"));
  std::vector<double> x(N), n(N), q(N);
  std::vector<uint64_t> counts(N);
  for (std::size_t i = 0; i < N; ++i) {
    x[i] = static_cast<double>(i + 1);
    // 1e-9 of slack: the rarest count is n_min exactly, not one less by rounding.
    counts[i] = static_cast<uint64_t>(std::floor(n_min * std::pow((N + shift) / (x[i] + shift), alpha) + 1e-9));
    n[i] = static_cast<double>(counts[i]);
  }
  const std::vector<double> iterates = sgd_approx_iterates(counts.front(), lr, M);
  for (std::size_t i = 0; i < N; ++i) q[i] = iterates[counts[i]];
  // Fits over every input, and over about 30 log-spaced inputs (closer to reading a log-log plot).
  auto fit = [&](const std::vector<std::size_t>& at) {
    std::vector<double> ln, lq;
    for (std::size_t i : at)
      if (q[i] > 0) ln.push_back(std::log(n[i])), lq.push_back(std::log(q[i]));
    return fit_line(ln, lq).slope;
  };
  std::vector<std::size_t> all(N), logspaced;
  for (std::size_t i = 0; i < N; ++i) all[i] = i;
  for (int k = 0; k < 30; ++k) {
    const auto i = static_cast<std::size_t>(std::lround(std::pow(static_cast<double>(N), k / 29.0))) - 1;
    if (logspaced.empty() || i != logspaced.back()) logspaced.push_back(i);
  }
  Record r;
  r.set("rho", fit(all));
  r.set("rho_log", fit(logspaced));
  r.set("q_first", q.front());
  r.set("q_last", q.back());
  const double rho_ref = prm.real("rho_ref");
  if (rho_ref >= 0) {
    // q_rho = c n^rho with the scale fitted in log space (mean of log q - rho log n over the inputs
    // with q > 0): the reference scheme placed on the curve, for the dashed lines of the figure.
    double log_c = 0;
    std::size_t used = 0;
    for (std::size_t i = 0; i < N; ++i)
      if (q[i] > 0) log_c += std::log(q[i]) - rho_ref * std::log(n[i]), ++used;
    log_c = used ? log_c / static_cast<double>(used) : 0.0;
    std::vector<double> ref(N);
    for (std::size_t i = 0; i < N; ++i) ref[i] = std::exp(log_c + rho_ref * std::log(n[i]));
    r.set_series("q_rho", std::move(ref));
  }
  r.set_series("x", std::move(x));
  r.set_series("n", std::move(n));
  r.set_series("q", std::move(q));
  return r;
}

// Bytes of one memory.sgd_approx_scheme run: f^n(0) for n up to the largest count n_1, and per
// input x, n, q, counts, indices, the fits' logarithms (88 bytes) and the series x, n, q (q_rho).
double sgd_approx_scheme_bytes(const Params& prm) {
  const double N = prm.real("N"), shift = prm.real("shift");
  const double n_first = std::floor(prm.real("n_min") * std::pow((N + shift) / (1 + shift), prm.real("alpha")) + 1e-9);
  const bool ref = prm.real("rho_ref") >= 0;
  return 8 * (n_first + 1) + (88 + (ref ? 8 : 0)) * N + series_bytes(prm, (ref ? 4 : 3) * N);
}

}  // namespace

void register_sgd_approx_measures(Registry& r) {
  {
    Measure m;
    m.name = "memory.sgd_approx";
    m.summary = "error (5) of the memory W_q that SGD builds under the approximate update (19)-(20), (56)";
    m.details =
        "Cabannes, Dohmatob, Bietti, Sec. 4 and Appendix A.11. Under the update (19) SGD from W = 0 keeps\n"
        "W = sum_x q(x) u_{f*(x)} e_x^T, and a step that sees x with weight c maps q(x) to\n"
        "f(q) = q + lr c / (1 + e^q / (M-1)) (Appendix A.11's M-1; eqs. (20), (56) print M^-1). The batch\n"
        "cross-entropy is averaged as in memory.train, so c = (count of x in the batch) / (batch size).\n"
        "counts=sampled: T i.i.d. Zipf samples from the run's stream; batch=1 gives q(x) = f^{n_x}(0) (20),\n"
        "batch=b runs ceil(T/b) steps over consecutive batches (the last one possibly smaller) with the\n"
        "exact counts (the paper's Figure 13). counts=expected: batch=1 gives f^{floor(T p(x))}(0), batch=b\n"
        "ceil(T/b) steps with c = p(x) (56). The error (5) of W_q is measured with fresh random embeddings\n"
        "(default N(0, I/d) for both e_x and u_y, as memory.train initialises E and U), exactly as\n"
        "memory.error does. Overlay with memory.train (model=matrix optimizer=sgd) for Figures 4 and 13.";
    m.params = zipf_task_params();
    m.params.push_back(int_param("d", "100", "embedding dimension of the memory whose error is measured", 1, 1e6));
    m.params.push_back(real_param("lr", "1", "SGD step gamma (batch-averaged loss, as memory.train)", 0, 1e9)
                           .allow_expression());
    m.params.push_back(count_param("batch", "1", "batch size (finite; inf is refused)"));
    m.params.push_back(count_param("T", "10240", "number of samples, one pass (finite; inf is refused)"));
    m.params.push_back(choice_param("counts", "sampled", {"sampled", "expected"},
                                    "sampled: counts of T i.i.d. samples per batch; expected: T p(x) (batch 1) or p(x) per step (56)"));
    m.params.push_back(choice_param("e_dist", "gaussian", {"gaussian", "sphere"},
                                    "input embeddings: N(0, I/d) or uniform on the unit sphere"));
    m.params.push_back(choice_param("u_dist", "gaussian", {"gaussian", "sphere"},
                                    "unembeddings: N(0, I/d) (as memory.train) or uniform on the unit sphere"));
    m.metrics = {{"error", "generalization error (5) of W_q with the approximate SGD weights q"},
                 {"unstored_mass", "p-mass of inputs with q(x) = 0 (never seen, or T p(x) < 1 with counts=expected)"},
                 {"updates", "number of SGD steps approximated: ceil(T / batch)"},
                 {"q", "the weights q(x), x = 0..N-1 (Figure 5 right)", true}};
    m.fn = sgd_approx_run;
    m.memory = sgd_approx_bytes;
    m.work = sgd_approx_work;
    r.add(std::move(m));
  }
  {
    Measure m;
    m.name = "memory.sgd_approx_iterates";
    m.summary = "f^n(0) for n = 0..n_max, the approximate SGD update (20) iterated (Figure 5 left)";
    m.details =
        "f(q) = q + lr / (1 + e^q / (M-1)): the effect on q(x) of one SGD step with batch size one that sees x\n"
        "(Appendix A.11; the main text prints M^-1 for (M-1)^-1). Series `value` is f^n(0) at n = `n`;\n"
        "`flow` is the continuous-time limit q(n) = a - W_0(e^a/(M-1)), a = lr n + 1/(M-1), which f^n(0)\n"
        "follows within O(lr). For large n both grow like log(lr (M-1) n): the saturation that makes SGD\n"
        "with a large step store every seen input with a similar weight.";
    m.params = {int_param("M", "5", "number of classes", 2, 1e6),
                real_param("lr", "1", "SGD step gamma", 0, 1e9),
                int_param("n_max", "1000", "largest number of steps", 0, 1e8),
                bool_param("saturation", "true",
                           "the step shrinks as q grows (the map (20)); false: every step keeps its size at q = 0, "
                           "lr (M-1)/M, as if p_W never moved (linear growth: a counterfactual)")};
    m.metrics = {{"last", "f^{n_max}(0)"},
                 {"n", "number of steps n = 0..n_max", true},
                 {"value", "f^n(0)", true},
                 {"flow", "continuous-time limit of f^n(0)", true}};
    m.fn = sgd_approx_iterates_run;
    m.memory = sgd_approx_iterates_bytes;
    m.deterministic = true;
    r.add(std::move(m));
  }
  {
    Measure m;
    m.name = "memory.sgd_approx_scheme";
    m.summary = "the scheme q_gamma(x) = f^{n_x}(0) of SGD with batch 1 for given counts, and its fitted rho (Figure 5 right)";
    m.details =
        "Figure 5 (right): q_gamma(x) = f^{n_x}(0), f the approximate update (20) (with (M-1)^-1, see\n"
        "memory.sgd_approx_iterates), for the counts n_x = floor(n_min ((N + shift)/(x + shift))^alpha), x = 1..N:\n"
        "n_x proportional to (x + shift)^-alpha with n_N = n_min (the paper: shift 3, alpha 2, n_N = 1). rho is\n"
        "the least-squares slope of log q on log n_x over every input, rho_log the same over about 30\n"
        "log-spaced inputs: the exponent of the scheme q_rho = p^rho (11) that q_gamma resembles (the paper\n"
        "reads 0.05, 0.35 and 1 for gamma = 10, 0.1 and 1e-3). rho_ref >= 0 adds the series q_rho =\n"
        "c n_x^rho_ref, its scale c fitted in log space (the dashed curves of the figure).";
    m.params = {int_param("N", "100", "number of inputs x = 1..N", 1, 1e7),
                int_param("M", "5", "number of classes", 2, 1e6),
                real_param("alpha", "2", "exponent of the counts n_x ~ (x + shift)^-alpha", 0, 100),
                real_param("shift", "3", "shift of the counts' power law (the paper: 3)", -0.999, 1e9),
                real_param("lr", "1", "SGD step gamma", 0, 1e9),
                int_param("n_min", "1", "count of the rarest input x = N", 1, 1e9),
                real_param("rho_ref", "-1", "exponent of the reference scheme q_rho to return (< 0: none)", -1, 100)};
    m.metrics = {{"rho", "least-squares exponent: slope of log q(x) on log n_x over all inputs"},
                 {"rho_log", "the same over about 30 log-spaced inputs"},
                 {"q_first", "q of the most frequent input, f^{n_1}(0)"},
                 {"q_last", "q of the rarest input, f^{n_min}(0)"},
                 {"x", "inputs 1..N", true},
                 {"n", "counts n_x", true},
                 {"q", "q_gamma(x) = f^{n_x}(0)", true},
                 {"q_rho", "rho_ref >= 0: c n_x^rho_ref, log c = mean of log q - rho_ref log n_x", true}};
    m.fn = sgd_approx_scheme_run;
    m.memory = sgd_approx_scheme_bytes;
    m.deterministic = true;
    r.add(std::move(m));
  }
}

}  // namespace scalinglab
