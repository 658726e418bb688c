// The measures of the `memory` world (Cabannes, Dohmatob, Bietti, "Scaling Laws for Associative
// Memories"), declared once: parameters, metrics and the function that computes them.
#include "scalinglab/memory/memory_measures.hpp"

#include <algorithm>
#include <cmath>

#include "scalinglab/core/error.hpp"

#include "scalinglab/core/zipf.hpp"
#include "scalinglab/memory/infinite_memory.hpp"
#include "scalinglab/memory/memory_error.hpp"
#include "scalinglab/memory/memory_scheme.hpp"
#include "scalinglab/memory/training.hpp"
#include "scalinglab/memory/zipf_task.hpp"

namespace scalinglab {

namespace {

using namespace memory;

// Substreams of a task's stream, so that adding a draw to one part never shifts another.
enum : uint64_t { kDataStream = 0, kEmbeddingStream = 1, kLabelStream = 2 };

std::vector<ParamSpec> data_params() { return zipf_task_params(); }

// One run's ingredients: the task and the scheme's weights q from fresh data (or the population),
// each from its own substream; embeddings come from the substream kEmbeddingStream.
struct MemoryRun {
  ZipfTask task;
  std::vector<double> q;
  double unseen = 0;
  EmbeddingDist e_dist = EmbeddingDist::gaussian, u_dist = EmbeddingDist::sphere;
  double correlation = 0.9;
  Readout readout;
  Stream embeddings;
};

MemoryRun draw_memory_run(const Params& prm, Stream& stream) {
  const auto N = static_cast<std::size_t>(prm.integer("N"));
  const auto M = static_cast<std::size_t>(prm.integer("M"));
  const double T = prm.count("T");
  MemoryRun run;
  Stream label_stream = stream.substream(kLabelStream);
  run.task = make_zipf_task(N, M, prm.real("alpha"), prm.choice("f"), label_stream);
  SchemeParams sp{parse_scheme(prm.choice("scheme")), prm.real("rho"), static_cast<std::size_t>(prm.real("P"))};
  if (std::isinf(T)) {
    run.q = scheme_weights_population(sp, run.task.p);
  } else {
    Stream data = stream.substream(kDataStream);
    const auto counts = sample_counts(run.task.p, static_cast<uint64_t>(prm.integer("T")), data);  // T < 9.2e18
    run.q = scheme_weights(sp, counts);
    for (std::size_t x = 0; x < N; ++x)
      if (counts[x] == 0) run.unseen += run.task.p[x];
  }
  run.e_dist = parse_embedding_dist(prm.choice("e_dist"));
  run.u_dist = parse_embedding_dist(prm.choice("u_dist"));
  run.correlation = prm.real("correlation");
  run.readout.interference = prm.real("interference");
  run.embeddings = stream.substream(kEmbeddingStream);
  return run;
}

// Materialised embeddings, in per-thread storage reused across runs.
const Embeddings& draw(MemoryRun& run, std::size_t d) {
  thread_local Embeddings storage;
  draw_embeddings(run.task.N, run.task.M, d, run.e_dist, run.u_dist, run.embeddings, storage, run.correlation);
  return storage;
}

// Bytes of one memory.error run: per input about 72 bytes (p twice, labels, q, sample counts and
// the alias sampler, Theorem 1's sorted copies), plus the error's buffers.
double memory_error_bytes(const Params& prm) {
  const double N = prm.real("N"), M = prm.real("M"), d = prm.real("d");
  return 72 * N + error_buffer_bytes(N, M, d, N * d <= kMaterialisedEntries);
}

// Bytes of one memory.matrix run: as memory.error with E held whole, plus the M x N matrix and its series.
double memory_matrix_bytes(const Params& prm) {
  const double N = prm.real("N"), M = prm.real("M"), d = prm.real("d");
  return 72 * N + error_buffer_bytes(N, M, d, true) + 8 * M * N + series_bytes(prm, M * N);
}

// A lookup table of the inputs the scheme stores (q(x) != 0): exact on them, a uniform guess among
// the M classes elsewhere, counted in expectation. The same storage as W_q without its interference.
double lookup_table_error(const MemoryRun& run) {
  double unstored = 0;
  for (std::size_t x = 0; x < run.task.N; ++x)
    if (run.q[x] == 0) unstored += run.task.p[x];
  return unstored * (1 - 1 / static_cast<double>(run.task.M));
}

Record memory_error_run(const Params& prm, Stream& stream) {
  MemoryRun run = draw_memory_run(prm, stream);
  const auto d = static_cast<std::size_t>(prm.integer("d"));
  thread_local ErrorWorkspace ws;
  const bool streamed = static_cast<double>(run.task.N) * static_cast<double>(d) > kMaterialisedEntries;
  const bool table = prm.choice("memory") == "table";
  const double error = table      ? lookup_table_error(run)
                       : streamed ? memory_error_streamed(run.task, run.q, d, run.e_dist, run.u_dist, run.embeddings, ws,
                                                          run.readout, run.correlation)
                                  : memory_error(run.task, run.q, draw(run, d), ws, run.readout);
  std::size_t stored = 0;
  for (double w : run.q) stored += w != 0;
  const Theorem1Bounds b = theorem1_bounds(run.task, run.q, d);
  Record r;
  r.set("error", error);
  r.set("stored", static_cast<double>(stored));
  r.set("unseen_mass", run.unseen);
  r.set("bound_lower", b.lower);
  r.set("bound_upper", b.upper);
  return r;
}

// The memory matrix (u_y^T W_q e_x)_{y, x} of Figure 11, row-major M x N, with q rescaled to max 1
// (the picture is invariant to the scale of q up to the colour bar).
Record memory_matrix_run(const Params& prm, Stream& stream) {
  MemoryRun run = draw_memory_run(prm, stream);
  ErrorWorkspace ws;
  Record r;
  const double error = memory_error(run.task, run.q, draw(run, static_cast<std::size_t>(prm.integer("d"))), ws, run.readout);
  r.set("error", prm.choice("memory") == "table" ? lookup_table_error(run) : error);
  std::vector<double> matrix(run.task.M * run.task.N);
  for (std::size_t y = 0; y < run.task.M; ++y)
    for (std::size_t x = 0; x < run.task.N; ++x)
      matrix[y * run.task.N + x] = ws.scores(static_cast<Eigen::Index>(y), static_cast<Eigen::Index>(x));
  r.set_series("matrix", std::move(matrix));
  return r;
}

// memory.train's parameters as a TrainSpec; InputError for combinations the trainer refuses.
TrainSpec train_spec(const Params& prm) {
  TrainSpec spec;
  spec.N = static_cast<std::size_t>(prm.integer("N"));
  spec.M = static_cast<std::size_t>(prm.integer("M"));
  spec.d = static_cast<std::size_t>(prm.integer("d"));
  spec.alpha = prm.real("alpha");
  spec.labels = prm.choice("f");
  spec.model.kind = parse_model(prm.choice("model"));
  spec.model.layernorm = prm.flag("layernorm");
  spec.model.saturating = prm.flag("saturation");
  spec.model.train_embeddings = prm.flag("train_embeddings");
  spec.optimizer.kind = parse_optimizer(prm.choice("optimizer"));
  spec.optimizer.lr = prm.real("lr");
  spec.optimizer.beta1 = prm.real("beta1");
  spec.optimizer.beta2 = prm.real("beta2");
  spec.optimizer.eps = prm.real("eps");
  spec.schedule.kind = parse_schedule(prm.choice("schedule"));
  spec.schedule.step_size = prm.integer("step_size");
  spec.schedule.gamma = prm.real("step_gamma");
  spec.T = prm.count("T");
  spec.batch = prm.count("batch");
  spec.population_steps = prm.integer("steps");
  spec.curve_points = static_cast<int>(prm.integer("curve"));
  spec.span_update = prm.flag("span_update");
  spec.snapshot_step = prm.integer("snapshot");
  spec.track_approx = prm.flag("approx");
  spec.zero_init_w = prm.choice("w_init") == "zero";
  spec.keep_embeddings = prm.flag("embeddings");
  spec.optimizer.lr_scaling = prm.flag("lr_scaling");
  spec.optimizer.normalize_scalar = prm.choice("normalize") == "scalar";
  spec.u_sphere = prm.choice("u_dist") == "sphere";
  spec.track_grad_var = prm.flag("grad_var");
  if (spec.track_grad_var && (spec.model.kind != ModelKind::matrix || spec.model.layernorm))
    throw InputError("memory.train: grad_var=true needs model=matrix without layer norm");
  spec.ties = parse_ties(prm.choice("ties"));
  if (spec.track_approx && spec.model.kind != ModelKind::matrix)
    throw InputError("memory.train: approx=true needs model=matrix (E and U fixed)");
  if (!std::isinf(spec.batch) && std::isinf(spec.T))
    throw InputError("memory.train: T=inf needs batch=inf (population gradient); give a finite T");
  if (!std::isinf(spec.T)) prm.integer("T");  // a count of samples below 9.2e18, or a sentence
  // A batch larger than the T samples is one batch of all of them (a step count, not 0 by overflow).
  if (!std::isinf(spec.batch)) spec.batch = std::min(spec.batch, spec.T);
  if (spec.optimizer.kind == OptimizerKind::sgd_normalized && spec.model.kind != ModelKind::matrix)
    throw InputError("memory.train: optimizer=sgd_normalized needs model=matrix");
  return spec;
}

Record train_run(const Params& prm, Stream& stream) {
  const TrainSpec spec = train_spec(prm);
  const TrainResult res = train_memory(spec, stream);
  Record r;
  r.set("error", res.error);
  r.set("loss", res.loss);
  r.set("updates", static_cast<double>(res.steps));
  r.set("diverged", std::isfinite(res.loss) ? 0.0 : 1.0);
  if (std::isfinite(res.grad_var_init)) {
    r.set("grad_var_init", res.grad_var_init);
    r.set("grad_var", res.grad_var);
  }
  if (spec.track_approx) {
    r.set("approx_error", res.approx_error);
    r.set("approx_gap", res.approx_error - res.error);
  }
  if (spec.snapshot_step >= 0) r.set_series("matrix", res.snapshot);
  if (spec.keep_embeddings) {
    r.set_series("E", res.E);
    r.set_series("U", res.U);
    r.set_series("features", res.features);
    r.set_series("label", res.label);
  }
  if (spec.curve_points > 0) {
    r.set_series("curve_step", res.curve_step);
    r.set_series("curve_error", res.curve_error);
    if (!res.curve_grad_var.empty()) r.set_series("curve_grad_var", res.curve_grad_var);
  }
  return r;
}

// Bytes of one memory.train run: the task and sampler (60 bytes per input), the batch, W, E and U
// twice (initial and trained), gradient and Adam moments when used, the state's own buffers, the
// per-batch activations, the logits at the end, and the returned snapshot, embeddings and curve.
double train_bytes(const Params& prm) {
  const TrainSpec spec = train_spec(prm);
  const double N = static_cast<double>(spec.N), M = static_cast<double>(spec.M), d = static_cast<double>(spec.d);
  const bool population = std::isinf(spec.batch);
  const double batch = population ? N : std::min(spec.batch, spec.T);
  const double k = std::min(batch, N);  // distinct inputs of a compacted batch
  const double params = 8 * (d * d + N * d + M * d);
  const OptimizerKind opt = spec.optimizer.kind;
  double bytes = 60 * N + 16 * batch + 2 * params + 8 * k * (6 * d + 2 * M);
  switch (state_path(spec)) {
    case StatePath::span: bytes += 8 * (2 * M * N + M * M + N * N + k * M + M * d); break;
    case StatePath::features: bytes += 8 * (N * d + N * N + 3 * k * d + N * k); break;
    case StatePath::dense:
      if (opt != OptimizerKind::sgd) bytes += params;  // gradient
      if (opt == OptimizerKind::adam && !(spec.optimizer.beta1 == 0 && spec.optimizer.beta2 == 0)) bytes += 2 * params;
      if (spec.optimizer.adaptive() && spec.model.learns_W()) bytes += 16 * k * d + 256 * d;
      if (opt == OptimizerKind::sgd_normalized) bytes += 8 * (d * d + k * d);
      break;
  }
  bytes += 8 * N * d + 16 * M * N;  // logits: the features, then the M x N product and its transpose
  if (spec.snapshot_step >= 0) bytes += 8 * M * N + series_bytes(prm, M * N);
  if (spec.keep_embeddings) {
    const double values = 2 * N * d + M * d + N;  // E, features, U, labels
    bytes += 8 * N * d + 8 * values + series_bytes(prm, values);
  }
  if (spec.track_approx) bytes += 8 * (N + 2 * M * d + M * M + 2 * M * N);
  if (spec.track_grad_var) bytes += 8 * (3 * N * N + 2 * M * N + M * M);
  return bytes + series_bytes(prm, 2.0 * spec.curve_points) + kProductWorkspaceBytes;
}

// Work of one memory.train run, in multiply-adds: per step the batch's sampling and, per distinct
// input of the batch, the state's update (span: M (M + N); features: N d + 3 M d; dense: forward and
// backward through W and U, plus the optimizer's pass over every parameter); per curve point and at
// the end, the logits of every input (N d (d + M)).
double train_work(const Params& prm) {
  const TrainSpec spec = train_spec(prm);
  const double N = static_cast<double>(spec.N), M = static_cast<double>(spec.M), d = static_cast<double>(spec.d);
  const bool population = std::isinf(spec.batch);
  const double batch = population ? N : std::min(spec.batch, spec.T);
  const double steps = population ? static_cast<double>(spec.population_steps) : std::ceil(spec.T / std::max(batch, 1.0));
  const double k = std::min(batch, N);
  double per_step = batch;
  switch (state_path(spec)) {
    case StatePath::span: per_step += k * M * (M + N); break;
    case StatePath::features: per_step += k * (N * d + 3 * M * d); break;
    case StatePath::dense: per_step += 6 * k * d * (d + M) + 4 * (d * d + N * d + M * d); break;
  }
  const double evaluation = N * d * (d + M) + M * M * N;
  double work = steps * per_step + (spec.curve_points + 2) * evaluation;
  if (spec.track_grad_var) work += (spec.curve_points + 2) * N * N * (M + d);
  return work;
}

Record infinite_memory_run(const Params& prm, Stream&) {
  const auto N = static_cast<std::size_t>(prm.integer("N"));
  const double alpha = prm.real("alpha"), T = prm.count("T");
  // zipf=frequency reads alpha as the exponent of the frequency distribution (the number of tokens of
  // frequency f ~ f^-alpha), whose rank-frequency exponent is 1/(alpha - 1).
  const bool frequency = prm.choice("zipf") == "frequency";
  if (frequency && !(alpha > 1)) throw InputError("memory.infinite_memory_error: zipf=frequency needs alpha > 1");
  Record r;
  r.set("error", infinite_memory_error(zipf_probabilities(N, frequency ? 1 / (alpha - 1) : alpha), T));
  r.set("asymptote", infinite_memory_asymptote(N, alpha, T));
  return r;
}

// Bytes of one memory.infinite_memory_error run: the N probabilities.
double infinite_memory_bytes(const Params& prm) { return 8 * prm.real("N"); }

std::vector<ParamSpec> memory_params() {
  std::vector<ParamSpec> ps = data_params();
  ps.push_back(int_param("d", "64", "embedding dimension (memory capacity)", 1, 1e6));
  ps.push_back(count_param("T", "inf", "number of samples; inf = population weights"));
  ps.push_back(choice_param("scheme", "threshold", {"q0", "rho", "threshold"},
                            "memory scheme: q0 (10), rho (11), threshold top-P (12)"));
  ps.push_back(real_param("rho", "0", "exponent of the frequency in schemes rho and threshold", 0, 10));
  ps.push_back(int_param("P", "d/8", "threshold scheme: number of stored inputs (formula of d, N, ... allowed)", 0, 1e9)
                   .allow_expression());
  ps.push_back(choice_param("e_dist", "gaussian", {"gaussian", "sphere", "correlated"},
                            "input embeddings: N(0, I/d), uniform on the unit sphere, or correlated (N(0, I/d) plus 3 times one "
                            "N(0, I/d) direction shared by all, over sqrt(10): correlation 0.9, not Theorem 1's independent embeddings)"));
  ps.push_back(real_param("correlation", "0.9", "e_dist=correlated: the correlation rho between any two input embeddings",
                           0, 0.99)
                   .same_world_param());  // the same draws, mixed otherwise
  ps.push_back(choice_param("u_dist", "sphere", {"sphere", "gaussian"},
                            "unembeddings: uniform on the unit sphere or N(0, I/d)"));
  ps.push_back(real_param("interference", "1",
                          "scale c of the cross-talk <e_x', e_x> between input embeddings in the scores: 1 is the paper's "
                          "memory (2); c < 1 a memory with less interference than random embeddings give, c > 1 one with more, "
                          "about that of embeddings c^-2 times as wide (counterfactuals for claims about capacity: 0.316 and "
                          "3.16 for a tenfold or a tenth of the width; 0: none)",
                          0, 10)
                   .same_world_param());
  return ps;
}

ParamSpec memory_kind_param() {
  return choice_param("memory", "superposed", {"superposed", "table"},
                      "superposed: W_q read by argmax (the paper's model); table: a lookup table of the stored inputs, "
                      "exact on them and a uniform guess elsewhere (no interference: a counterfactual)")
      .same_world_param();  // the same data, labels and draws for both kinds of memory
}

}  // namespace

std::vector<ParamSpec> zipf_task_params() {
  return {
      int_param("N", "100", "number of input tokens x in [N]", 1, 1e8),
      int_param("M", "5", "number of classes y in [M]", 2, 1e6),
      real_param("alpha", "2", "Zipf exponent: p(x) ~ x^-alpha", 0, 100),
      choice_param("f", "mod", {"mod", "random", "block"},
                   "label map f*(x): x mod M, uniform random in [M], or floor(x M / N) (blocks: Zipf-like classes)"),
  };
}

void register_memory_measures(Registry& r) {
  {
    Measure m;
    m.name = "memory.error";
    m.summary = "generalization error (5) of the outer-product memory W_q with random embeddings";
    m.details =
        "Cabannes, Dohmatob, Bietti, Sec. 2-3. Data: p(x) ~ (x+1)^-alpha on tokens x = 0..N-1 (rank x+1),\n"
        "labels f*(x); T i.i.d. samples (T = inf: the population). Memory W_q = sum_x q(x) u_{f*(x)} e_x^T\n"
        "with a scheme q: q0 (10) = 1{seen}; rho (11) = phat^rho; threshold (12) = phat^rho on the P most\n"
        "frequent inputs (ties to the smaller index). Embeddings e_x ~ N(0, I/d) (or uniform on the sphere),\n"
        "unembeddings u_y uniform on the sphere (or N(0, I/d)). Error = p-mass of inputs whose true class\n"
        "does not have the strictly largest score u_y^T W_q e_x. Each run draws data, labels (f=random) and\n"
        "embeddings afresh. bound_lower/bound_upper are Theorem 1's (8) and (7) for the run's q.\n"
        "memory=table replaces W_q by a lookup table of the same stored inputs (exact on them, a uniform guess\n"
        "elsewhere): the storage without interference, a counterfactual for claims about finite capacity.";
    m.params = memory_params();
    m.params.push_back(memory_kind_param());
    m.metrics = {{"error", "generalization error (5): p-mass of misclassified inputs"},
                 {"stored", "number of inputs with q(x) != 0"},
                 {"unseen_mass", "p-mass of inputs absent from the sample (0 when T = inf)"},
                 {"bound_lower", "Theorem 1 lower bound (8) on E_{e,u}[error] for this q"},
                 {"bound_upper", "Theorem 1 upper bound (7), minimised over gamma, for this q"}};
    m.fn = memory_error_run;
    m.memory = memory_error_bytes;
    r.add(std::move(m));
  }
  {
    Measure m;
    m.name = "memory.matrix";
    m.summary = "the memory matrix (u_y^T W_q e_x)_{y,x} of one run, as pictured in Figure 11";
    m.details =
        "Same model and parameters as memory.error. Returns the M x N matrix of scores row-major in the\n"
        "series `matrix` (q rescaled to max 1), and the run's error. Sweeps draw it as heat maps\n"
        "(plot kind = \"heatmap\").";
    m.params = memory_params();
    m.params.push_back(memory_kind_param());
    m.metrics = {{"error", "generalization error (5) of this run (memory=table: of the lookup table)"},
                 {"matrix", "scores u_y^T W_q e_x, row-major M x N", true}};
    m.fn = memory_matrix_run;
    m.memory = memory_matrix_bytes;
    r.add(std::move(m));
  }
  {
    Measure m;
    m.name = "memory.train";
    m.summary = "error (5) of a memory trained by SGD or Adam on T Zipf samples (Section 4)";
    m.details =
        "Cabannes, Dohmatob, Bietti, Sec. 4 and Appendix B.1. Logits u_y^T n(W e_x) (model=matrix: W learned,\n"
        "E and U fixed; learnable: E, W, U learned) or u_y^T n(ReLU(e_x)) (relu: E and U learned), n = layer norm\n"
        "h / sqrt(sum h^2 + 1e-6) when layernorm=true. W, E, U start with i.i.d. N(0, 1/d) entries. Cross-entropy\n"
        "averaged over each batch; a single pass over T i.i.d. samples in consecutive batches (ceil(T/batch)\n"
        "steps), or batch=inf: `steps` population-gradient steps. sgd: the same step lr for every tensor;\n"
        "adam: betas (beta1, beta2) (default 0.9, 0.999), eps, bias correction, steps lr/d for W and lr/sqrt(d)\n"
        "for E and U (lr_scaling=false: lr for every tensor); signsgd: Adam with betas (0, 0), the paper's\n"
        "idealisation of Adam, with the same steps. Schedules: constant, step (lr * step_gamma^floor(t/step_size)), cosine.\n"
        "curve=K records the error at K log-spaced steps (series curve_step, curve_error).";
    m.params = data_params();
    m.params.push_back(int_param("d", "100", "embedding dimension", 1, 1e5));
    m.params.push_back(choice_param("model", "matrix", {"matrix", "learnable", "relu"},
                                    "matrix: W learned; learnable: E, W, U learned; relu: u_y^T ReLU(e_x), E and U learned"));
    m.params.push_back(bool_param("layernorm", "false", "normalise h = W e_x (or ReLU(e_x)) to unit length before U"));
    m.params.push_back(bool_param("train_embeddings", "true",
                                  "learnable, relu: E and U are learned (false: they stay at their random start, as when the "
                                  "optimiser is not given them; a counterfactual)")
                           .same_world_param());
    m.params.push_back(bool_param("saturation", "true",
                                  "the cross-entropy's gradient shrinks by (1 - p_W) as an association is stored (Sec. 4); false: "
                                  "every step uses the gradient at uniform predictions p_W = 1/M, so updates never shrink (a "
                                  "counterfactual: no saturation of the map (20))")
                           .same_world_param());
    m.params.push_back(choice_param("optimizer", "sgd", {"sgd", "adam", "signsgd", "sgd_normalized"},
                                    "sgd (no momentum), adam, signsgd (Adam with betas 0, 0), or sgd_normalized (W's gradient / std of "
                                    "per-example gradients; matrix model)"));
    m.params.push_back(real_param("lr", "1", "learning rate (adam, signsgd: lr/d on W, lr/sqrt(d) on E and U unless lr_scaling=false); formula allowed, e.g. sqrt(batch)", 0, 1e9)
                           .allow_expression());
    m.params.push_back(bool_param("lr_scaling", "true",
                                  "adam, signsgd: per-tensor steps lr/d on W and lr/sqrt(d) on E and U (Appendix B.1); false: lr everywhere"));
    m.params.push_back(real_param("beta1", "0.9", "adam: first-moment decay (signsgd ignores it)", 0, 0.999999));
    m.params.push_back(real_param("beta2", "0.999", "adam: second-moment decay (signsgd ignores it)", 0, 0.999999));
    m.params.push_back(choice_param("normalize", "entrywise", {"entrywise", "scalar"},
                                    "sgd_normalized: divide each entry by the std of its per-example gradients (entrywise), or the "
                                    "whole gradient by the std of its entries (scalar, the authors' code)"));
    m.params.push_back(choice_param("u_dist", "gaussian", {"gaussian", "sphere"},
                                    "initial unembeddings u_y: N(0, I/d) or the same draws scaled to the unit sphere"));
    m.params.push_back(choice_param("ties", "error", {"error", "first", "random"},
                                    "error (5) when the true class ties for the largest logit: a mistake (error), the first "
                                    "largest class wins (first, as torch.argmax), or a uniform random pick, counted in expectation (random)"));
    m.params.push_back(real_param("eps", "1e-8", "adam: epsilon", 0, 1));
    m.params.push_back(choice_param("schedule", "constant", {"constant", "step", "cosine"},
                                    "learning-rate schedule over the steps"));
    m.params.push_back(int_param("step_size", "1000", "schedule=step: steps between decays (formula allowed, e.g. T/10)", 1, 1e12)
                           .allow_expression());
    m.params.push_back(real_param("step_gamma", "0.5", "schedule=step: decay factor", 0, 1));
    m.params.push_back(count_param("batch", "1", "batch size; inf = population gradient"));
    m.params.push_back(count_param("T", "10240", "number of samples (one pass); inf only with batch=inf"));
    m.params.push_back(int_param("steps", "100", "batch=inf: number of population-gradient steps", 1, 1e9));
    m.params.push_back(int_param("curve", "0", "record the error at this many log-spaced steps (0: end only)", 0, 10000));
    m.params.push_back(int_param("snapshot", "-1",
                                 "record the M x N logit matrix after this many steps (series matrix; -1: no)", -1, 1e12)
                           .implementation_switch());
    m.params.push_back(choice_param("w_init", "normal", {"normal", "zero"},
                                    "initial W: N(0, 1/d) entries (Appendix B.1) or 0 (the start of the approximation (20))"));
    m.params.push_back(bool_param("approx", "false",
                                  "also follow the approximate update (19)-(20) on the same samples (matrix model)")
                           .implementation_switch());
    m.params.push_back(bool_param("embeddings", "false",
                                  "return the final E (N x d), U (M x d), features n(W e_x) (N x d) and labels f*(x) as series (Fig. 9)")
                           .implementation_switch());
    m.params.push_back(bool_param("grad_var", "false",
                                  "model=matrix, no layer norm: report the variance of W's per-example gradients under p "
                                  "(grad_var_init, grad_var, series curve_grad_var; Fig. 16 right)")
                           .implementation_switch());
    m.params.push_back(bool_param("span_update", "true",
                                  "matrix model + sgd without layer norm: O(M N) steps in span{u_z e_x^T} (false: dense)")
                           .implementation_switch());
    m.metrics = {{"error", "generalization error (5) at the end of training"},
                 {"loss", "population cross-entropy at the end"},
                 {"updates", "number of optimizer steps taken"},
                 {"diverged", "1 if training diverged (non-finite loss, reported as null; error is then 1)"},
                 {"curve_step", "steps at which the curve was recorded", true},
                 {"curve_error", "error (5) after those steps", true},
                 {"grad_var_init", "grad_var=true: total variance E_x ||g_x - E g||^2 of W's per-example gradients under p, at initialisation"},
                 {"grad_var", "the same at the end of training (Fig. 16 right)"},
                 {"curve_grad_var", "the same at the curve's steps", true},
                 {"approx_error", "approx=true: error of W_q, q from the approximate update (20) on the same draws"},
                 {"approx_gap", "approx=true: approx_error - error (paired: same samples and embeddings)"},
                 {"matrix", "snapshot >= 0: logits u_y^T n(W_t e_x), row-major M x N, after `snapshot` steps", true},
                 {"E", "embeddings=true: final input embeddings e_x, row-major N x d", true},
                 {"U", "embeddings=true: final unembeddings u_y, row-major M x d", true},
                 {"features", "embeddings=true: final features n(W e_x) (relu: n(ReLU(e_x))) that U reads, row-major N x d", true},
                 {"label", "embeddings=true: the label f*(x) of each input x", true}};
    m.fn = train_run;
    m.memory = train_bytes;
    m.work = train_work;
    r.add(std::move(m));
  }
  {
    Measure m;
    m.name = "memory.infinite_memory_error";
    m.summary = "Proposition 1: exact error sum_x p(x)(1-p(x))^T of a learner that memorises all it saw";
    m.details =
        "Exact expected error of the infinite-memory learner after T Zipf(alpha) samples over N tokens,\n"
        "and its large-N asymptote C^(1/alpha) Gamma(1-1/alpha)/alpha T^-(1-1/alpha) (alpha > 1; see\n"
        "docs/memory.md for the constant, which Appendix A.1 misprints).";
    m.params = {int_param("N", "1000", "number of input tokens", 1, 1e9),
                real_param("alpha", "2", "Zipf exponent", 0, 100),
                count_param("T", "1000", "number of samples (inf gives 0)", 0),
                choice_param("zipf", "rank", {"rank", "frequency"},
                             "rank: p(x) ~ x^-alpha, the paper's law (1); frequency: alpha read as the exponent of the "
                             "frequency distribution, as some of the Zipf literature does, i.e. p(x) ~ x^-1/(alpha-1) (a "
                             "counterfactual: another exponent under the same name; the asymptote stays the paper's)")};
    m.metrics = {{"error", "exact expected error sum_x p(x)(1-p(x))^T"},
                 {"asymptote", "C^(1/alpha) Gamma(1-1/alpha)/alpha T^-(1-1/alpha) (NaN if alpha <= 1)"}};
    m.fn = infinite_memory_run;
    m.memory = infinite_memory_bytes;
    m.deterministic = true;
    r.add(std::move(m));
  }
  register_embedding_measures(r);
}

}  // namespace scalinglab
