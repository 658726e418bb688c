// The measures of the `factor` world (Arnal et al. 2024, "Scaling Laws with Hidden Structure"),
// declared once: the complexities chi and chi-bar of a factorization, and training the gated MLP.
#include "scalinglab/factor/factor_measures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/progress.hpp"
#include "scalinglab/factor/factor_task.hpp"
#include "scalinglab/factor/factor_training.hpp"
#include "scalinglab/lab/checkpoint.hpp"

namespace scalinglab {

namespace {

using namespace factor;

FactorSpec factor_spec(const Params& prm, const std::string& context) {
  FactorSpec s;
  try {
    s.input = parse_factors(prm.choice("input_factors"));
    s.output = parse_factors(prm.choice("output_factors"));
  } catch (const std::invalid_argument& e) {
    throw InputError(context + ": " + e.what());
  }
  s.parents = static_cast<int>(prm.integer("parents"));
  s.beta = prm.real("beta");
  if (prm.has("alpha")) s.alpha = prm.real("alpha");
  return s;
}

void factors_validator(const std::string& text) {
  try {
    parse_factors(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
}

std::vector<ParamSpec> graph_params() {
  return {text_param("input_factors", "2x12", "input factor sizes (P1): AxK = K factors of size A, or a list 2,2,3,5",
                     factors_validator),
          text_param("output_factors", "8x4", "output factor sizes (P2), same syntax", factors_validator),
          int_param("parents", "2", "parents per output factor |I_j| (P3); clamped to the number of input factors", 0, 64),
          real_param("beta", "-1", "edge probability (P3'); when in [0, 1] it replaces `parents`", -1, 1)};
}

Record complexity_run(const Params& prm, Stream& stream) {
  const FactorSpec spec = factor_spec(prm, "factor.complexity");
  Stream graph = stream.substream(0);  // the same stream FactorTask uses for its graph
  const auto parents = draw_parents(spec, graph);
  Record r;
  r.set("chi", statistical_complexity(spec.input, spec.output, parents));
  r.set("chi_bar", approximation_complexity(spec.input, spec.output, parents));
  if (prm.flag("rank")) {
    Stream world = stream;  // the same draws as FactorTask(spec, stream): parents, then conditionals
    r.set("rank_logp", static_cast<double>(FactorTask(spec, world).rank_logp()));
  }
  if (spec.input.size() <= 24) {
    const ExpectedComplexity e = expected_complexity(spec);
    r.set("chi_mean", e.chi);
    r.set("chi_bar_mean", e.chi_bar);
  }
  double N = 1, M = 1, P = 0, Q = 0, P_bar = 0;
  for (uint32_t p : spec.input) N *= p, P += p;
  for (uint32_t q : spec.output) M *= q, Q += q;
  for (const auto& I : parents) {
    double pa = 1;
    for (uint32_t i : I) pa *= spec.input[i];
    P_bar += pa;
  }
  r.set("N", N);
  r.set("M", M);
  r.set("P", P);
  r.set("Q", Q);
  r.set("P_bar", P_bar);
  return r;
}

// The world of a run (the parent graph, the conditionals p(y_j | pa_j) and, in generalization, the
// observed inputs) comes from substream 0 of the run's stream; the training randomness
// (initialisation, the frozen factor embeddings, batches) from substream 1 mixed with the training
// parameters. The world therefore depends only on the stream's key and never on d, h, lr, epochs,
// ...: two runs whose keys agree see the same p and the same observed inputs (the lab's key covers
// the parameters that take part in it, see docs/factor.md).
const std::vector<std::string>& training_param_names() {
  static const std::vector<std::string> names = {"embedding", "d",      "h",     "L",     "gate", "lr",
                                                 "schedule",  "epochs", "C",     "batch", "evals"};
  return names;
}

Stream training_stream(const Params& prm, const Stream& stream) {
  std::string text;
  for (const auto& name : training_param_names()) text += name + "=" + prm.entry(name).text + " ";
  return Stream(mix64(stream.substream(1).key() ^ stable_hash(text)));
}

// What train_run would refuse only after drawing its world: checked before any task runs.
void train_check(const Params& prm) {
  const FactorSpec fs = factor_spec(prm, "factor.train");
  double N = 1, M = 1;
  for (uint32_t p : fs.input) N *= p;
  for (uint32_t q : fs.output) M *= q;
  if (M > double(1u << 20)) throw InputError("factor.train: M above 2^20 outputs (a chunk's logits would not fit in memory)");
  if (parse_setting(prm.choice("setting")) == Setting::generalization) {
    TrainSpec ts;
    ts.setting = Setting::generalization;
    ts.gamma = prm.real("gamma");
    const std::size_t seen = samples_per_epoch(ts, static_cast<std::size_t>(N));
    if (seen < 1 || static_cast<double>(seen) >= N)
      throw InputError("factor.train: gamma = " + prm.entry("gamma").text + " observes round(gamma N) = " +
                       std::to_string(seen) + " of N = " + std::to_string(static_cast<uint64_t>(N)) +
                       " inputs; generalization needs at least one observed and one unobserved input");
  }
}

Record train_run(const Params& prm, Stream& stream) {
  const FactorSpec fs = factor_spec(prm, "factor.train");
  Stream world = stream.substream(0), task_stream = world, split_stream = world.substream(1000),
         train_stream = training_stream(prm, stream);
  double N = 1, M = 1;
  for (uint32_t p : fs.input) N *= p;
  for (uint32_t q : fs.output) M *= q;
  if (M > double(1u << 20)) throw InputError("factor.train: M above 2^20 outputs (a chunk's logits would not fit in memory)");
  TrainSpec ts;
  ts.setting = parse_setting(prm.choice("setting"));
  ts.d = static_cast<std::size_t>(prm.integer("d"));
  ts.h = static_cast<std::size_t>(prm.integer("h"));
  ts.L = static_cast<std::size_t>(prm.integer("L"));
  ts.gate = parse_gate(prm.choice("gate"));
  const std::string& emb = prm.choice("embedding");
  ts.factorized_embedding = emb == "factorized" || (emb == "auto" && ts.setting == Setting::generalization);
  ts.lr = prm.real("lr");
  ts.schedule = parse_schedule(prm.choice("schedule"));
  ts.batch = static_cast<std::size_t>(prm.integer("batch"));
  ts.gamma = prm.real("gamma");
  ts.evals = static_cast<std::size_t>(prm.integer("evals"));
  const double flops_per_epoch = static_cast<double>(samples_per_epoch(ts, static_cast<std::size_t>(N))) *
                                 flops_per_sample(ts.d, ts.h, ts.L, static_cast<std::size_t>(M));
  const double C = prm.real("C");
  if (C > 0) {
    ts.epochs = static_cast<std::size_t>(std::max(1.0, std::round(C / flops_per_epoch)));
  } else {
    ts.epochs = static_cast<std::size_t>(prm.real("epochs"));
  }
  // Extra evaluations: after T/10 epochs (loss_tenth: the last 90% of the compute, for saturation)
  // and after the first epoch whose compute reaches probe_C (loss_probe: curves of several runs
  // compared at one compute).
  const std::size_t tenth = static_cast<std::size_t>(std::llround(static_cast<double>(ts.epochs) / 10));
  const double probe_C = prm.real("probe_C");
  const std::size_t probe = probe_C > 0 ? static_cast<std::size_t>(std::ceil(probe_C / flops_per_epoch - 1e-9)) : 0;
  ts.extra_evals = {tenth};
  if (probe_C > 0 && probe <= ts.epochs) ts.extra_evals.push_back(probe);
  TrainResult res;
  FactorTask task = [&] {
    try {
      return FactorTask(fs, task_stream);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("factor.train: ") + e.what());
    }
  }();
  // A long run that has the machine to itself (eval, runs = 1) reports its epochs on stderr: a bar
  // on a terminal, a line every 10% or 30 s otherwise. Runs inside a parallel sweep stay silent
  // (the sweep reports tasks).
  std::unique_ptr<Progress> progress;
  if (task_threads() > 1 && static_cast<double>(ts.epochs) * flops_per_epoch > 2e11) {
    progress = std::make_unique<Progress>(ts.epochs, 0, "factor.train", false, "epochs");
    ts.on_epoch = [&progress] { progress->advance(); };
  }
  ts.checkpoint = current_checkpoint();  // in a sweep: saved every --checkpoint-every and on signals
  try {
    res = train(task, ts, train_stream, &split_stream);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("factor.train: ") + e.what());
  }
  if (progress) progress->finish();
  double entropy = 0;
  for (std::size_t x = 0; x < task.N(); ++x) entropy += task.conditional_entropy(x);
  // The test inputs' mean entropy: the unobserved inputs in generalization (the same subset train()
  // drew from split_stream), every input otherwise.
  double test_entropy = entropy / N;
  if (ts.setting == Setting::generalization) {
    std::vector<uint32_t> observed, unobserved;
    split_inputs(task.N(), res.observed, split_stream, observed, unobserved);
    test_entropy = 0;
    for (uint32_t x : unobserved) test_entropy += task.conditional_entropy(x);
    test_entropy /= static_cast<double>(unobserved.size());
  }
  const double body = static_cast<double>(ts.L * 3 * ts.d * ts.h) + M * static_cast<double>(ts.d);
  Record r;
  auto loss_at = [&res](std::size_t epoch) {
    for (std::size_t i = 0; i < res.curve_epoch.size(); ++i)
      if (res.curve_epoch[i] == static_cast<double>(epoch)) return res.curve_loss[i];
    return std::numeric_limits<double>::quiet_NaN();
  };
  r.set("loss", res.loss);
  r.set("loss_tenth", loss_at(tenth));
  r.set("loss_probe", probe_C > 0 && probe <= ts.epochs ? loss_at(probe) : std::numeric_limits<double>::quiet_NaN());
  r.set("train_loss", res.train_loss);
  r.set("flops", res.flops);
  r.set("epochs", static_cast<double>(ts.epochs));
  r.set("chi", task.chi());
  r.set("chi_bar", task.chi_bar());
  r.set("rank_logp", static_cast<double>(task.rank_logp()));
  r.set("N", N);
  r.set("M", M);
  r.set("observed", static_cast<double>(res.observed));
  r.set("parameters", body + (ts.factorized_embedding ? 0.0 : N * static_cast<double>(ts.d)));
  r.set("entropy", entropy / N);
  r.set("test_entropy", test_entropy);
  r.set("diverged", res.diverged ? 1.0 : 0.0);
  r.set_series("curve_epoch", std::move(res.curve_epoch));
  r.set_series("curve_loss", std::move(res.curve_loss));
  r.set_series("curve_flops", std::move(res.curve_flops));
  return r;
}

// Work of one factor.train run: the flops of its training (epochs, or C's epochs, x samples per epoch
// x flops per sample), as the measure counts them, plus its evaluations on every input.
double train_work(const Params& prm) {
  const FactorSpec fs = factor_spec(prm, "factor.train");
  double N = 1, M = 1;
  for (uint32_t p : fs.input) N *= p;
  for (uint32_t q : fs.output) M *= q;
  TrainSpec ts;
  ts.setting = parse_setting(prm.choice("setting"));
  ts.batch = static_cast<std::size_t>(prm.real("batch"));
  ts.gamma = prm.real("gamma");
  const double per_sample = flops_per_sample(static_cast<std::size_t>(prm.real("d")), static_cast<std::size_t>(prm.real("h")),
                                             static_cast<std::size_t>(prm.real("L")), static_cast<std::size_t>(M));
  const double per_epoch = static_cast<double>(samples_per_epoch(ts, static_cast<std::size_t>(N))) * per_sample;
  const double C = prm.real("C");
  const double epochs = C > 0 ? std::max(1.0, C / per_epoch) : prm.real("epochs");
  return epochs * per_epoch + (prm.real("evals") + 3) * N * per_sample / 3;
}

// Bytes of one factor.train run: the conditional tables p(y_j | pa_j) and their entropies, per
// input entropies and row lists, the batch, parameters, gradient and Adam moments (16 bytes per
// parameter), the per-shard gradients, the embedding's row gradients, and the per-worker
// activations of a chunk of rows.
double train_bytes(const Params& prm) {
  const FactorSpec fs = factor_spec(prm, "factor.train");
  double N = 1, M = 1, tables = 0;
  for (uint32_t p : fs.input) N *= p;
  for (uint32_t q : fs.output) M *= q;
  const std::size_t k = fs.input.size();
  std::vector<double> sizes(fs.input.begin(), fs.input.end());
  std::sort(sizes.rbegin(), sizes.rend());
  // Parents of one output factor: `parents`, or for random edges the mean plus two standard deviations.
  double parents = std::max(fs.parents, 0), configs = 1, expected = 1;
  if (fs.beta >= 0) {
    const double kk = static_cast<double>(k);
    parents = std::ceil(kk * fs.beta + 2 * std::sqrt(kk * fs.beta * (1 - fs.beta)));
    for (double p : sizes) expected *= 1 - fs.beta + fs.beta * p;
  }
  // Parent configurations of one output factor: those of the largest input factors, at least the mean.
  for (std::size_t i = 0; i < std::min(static_cast<std::size_t>(parents), k); ++i) configs *= sizes[i];
  configs = std::max(configs, expected);
  for (uint32_t q : fs.output) tables += 8 * configs * (q + 1);
  const Setting setting = parse_setting(prm.choice("setting"));
  const double d = prm.real("d"), h = prm.real("h"), L = prm.real("L"), batch = prm.real("batch");
  const std::string& emb = prm.choice("embedding");
  const bool learned = !(emb == "factorized" || (emb == "auto" && setting == Setting::generalization));
  const double body = 3 * L * h * d + M * d, params = N * d + body;
  const double rows = setting == Setting::single_pass ? batch
                      : setting == Setting::compression ? N
                                                        : std::round(prm.real("gamma") * N);
  const double test_rows = setting == Setting::generalization ? N - rows : N;
  const double shards = std::min(16.0, std::ceil(rows / 1024));  // of the gradient
  const double workers =
      std::min({16.0, std::ceil(std::max(rows, test_rows) / 1024), static_cast<double>(resolve_threads(0))});
  const double chunk = std::clamp(std::floor(1048576 / M), 16.0, 256.0);
  const double workspace = 4 * chunk * (2 * (L + 1) * d + 3 * L * h + M + 2 * d + 3 * h + L + 1) + 12 * M;
  // rank_logp: a (distinct parent tuples <= N) x (sum of q_j) matrix, singular values by LAPACK (dgesdd), whose
  // bidiagonalisation and divide-and-conquer work arrays hold about five more copies of it.
  double Q = 0;
  for (uint32_t q : fs.output) Q += q;
  const double rank = 6 * 8 * N * Q;
  return tables + 28 * N + (setting == Setting::single_pass ? 8 * batch : 0.0) + 16 * params + 4 * shards * body +
         (learned ? 4 * rows * d : 0.0) + workers * workspace + rank + kProductWorkspaceBytes;
}

}  // namespace

void register_factor_measures(Registry& reg) {
  {
    Measure m;
    m.name = "factor.complexity";
    m.summary = "the complexities of a hidden factorization: chi (SC) and chi-bar (AC) (Arnal et al., Sec. 3)";
    m.details =
        "chi = sum_j q_j |pa_j| (statistical complexity, SC) and chi_bar = sum_j min(|pa_j|, q_j) (approximation\n"
        "complexity, AC), |pa_j| = prod_{i in I_j} p_i, for one draw of the parent graph: |I_j| = parents inputs chosen\n"
        "uniformly per output factor (P3), or each edge with probability beta (P3'). With equal p_i under (P3) both are\n"
        "deterministic. chi_mean and chi_bar_mean are their exact expectations over the graph (subsets enumerated; up to\n"
        "24 input factors). N = prod p_i, M = prod q_j, P = sum p_i, Q = sum q_j, P_bar = sum_j |pa_j|.";
    m.params = graph_params();
    m.params.push_back(real_param("alpha", "0.1", "Dirichlet concentration of p(y_j | pa_j) (P4); used by rank", 1e-6, 1e6));
    m.params.push_back(bool_param("rank", "false", "also draw the conditionals and report rank_logp (builds N x Q numbers)"));
    m.metrics = {{"chi", "statistical complexity sum_j q_j |pa_j| (SC)"},
                 {"rank_logp", "with rank = true: rank of log p(y|x) up to column constants (<= chi_bar)"},
                 {"chi_bar", "approximation complexity sum_j min(|pa_j|, q_j) (AC)"},
                 {"chi_mean", "expectation of chi over the random parent graph (absent above 24 input factors)"},
                 {"chi_bar_mean", "expectation of chi_bar over the random parent graph (absent above 24 input factors)"},
                 {"N", "number of inputs prod p_i"},
                 {"M", "number of outputs prod q_j"},
                 {"P", "sum p_i"},
                 {"Q", "sum q_j"},
                 {"P_bar", "sum_j |pa_j|"}};
    m.fn = complexity_run;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "factor.train";
    m.summary = "a residual gated MLP learning p(y|x) with hidden factorial structure: excess loss (KL) along training";
    m.details =
        "Arnal et al., Sec. 4. Data (P1-P4): uniform p(x), p(y_j | pa_j) ~ Dirichlet(alpha). Model (P5-P7): embedding,\n"
        "L blocks z <- z + W2^T(g(W1 n(z)) * W3 n(z)), n(z) = z/sqrt(mean z^2 + 1e-6), logits W_out n(z), no biases,\n"
        "PyTorch's default initialisation, float32; gate g = SiLU (Mistral's code) or logistic (the paper's text).\n"
        "Adam (0.9, 0.999, 1e-8), lr with the cosine schedule or the custom one of eq. (7) (ends at 3e-4), stepped\n"
        "every epoch; one epoch = one optimizer step. Settings: single_pass (fresh batches of `batch` i.i.d. pairs,\n"
        "loss = population KL), compression (full batch on the exact p(y|x), loss = population KL), generalization\n"
        "(a fraction gamma of the inputs observed with their exact p(y|x), loss = mean KL over the unobserved inputs;\n"
        "embedding auto = the frozen factorization-compatible embedding (4)). flops = epochs x samples per epoch x\n"
        "3(6 L d h + 2 d M) (the Supplement's count); C > 0 sets epochs from that budget. Series: curve_loss after\n"
        "curve_epoch epochs (log-spaced), curve_flops.";
    m.params = graph_params();
    m.params.push_back(real_param("alpha", "0.1", "Dirichlet concentration of p(y_j | pa_j) (P4)", 1e-6, 1e6));
    m.params.push_back(choice_param("setting", "compression", {"single_pass", "compression", "generalization"},
                                    "training setting (Sec. 4.2-4.4)"));
    m.params.push_back(choice_param("embedding", "auto", {"auto", "learned", "factorized"},
                                    "input embedding: learned N(0,1), or the frozen factorization-compatible one (4); "
                                    "auto = factorized for generalization"));
    m.params.push_back(int_param("d", "64", "embedding dimension (P5)", 1, 1 << 16).allow_expression());
    m.params.push_back(int_param("h", "2*d", "hidden dimension (P6); formula allowed", 1, 1 << 18).allow_expression());
    m.params.push_back(int_param("L", "1", "number of residual blocks (P7)", 1, 256));
    m.params.push_back(choice_param("gate", "silu", {"silu", "logistic"}, "gate nonlinearity g"));
    m.params.push_back(real_param("lr", "3e-2", "initial learning rate eta (P8)", 0, 10));
    m.params.push_back(choice_param("schedule", "cosine", {"cosine", "custom", "custom_log", "constant"},
                                    "learning-rate schedule: cosine, custom (eq. 7), custom_log (the authors' code: "
                                    "eq. 7 with the cosine in log t) or constant"));
    m.params.push_back(real_param("epochs", "1000", "epochs T = optimizer steps (P9); formula allowed", 1, 1e9).allow_expression());
    m.params.push_back(real_param("C", "0", "FLOP budget: when > 0, epochs = C / (samples per epoch x flops per sample)", 0, 1e30));
    m.params.push_back(real_param("probe_C", "0", "when > 0: also report loss_probe, the test loss after the first epoch "
                                  "whose compute reaches probe_C FLOPs (NaN beyond the run)", 0, 1e30));
    m.params.push_back(int_param("batch", "8192", "batch size of the single-pass setting", 1, 1 << 24));
    m.params.push_back(real_param("gamma", "0.9", "observed fraction of the inputs (P10, generalization)", 0, 1));
    m.params.push_back(int_param("evals", "30", "log-spaced evaluation epochs along training (plus epoch 0)", 1, 10000));
    m.metrics = {{"loss", "final test loss: KL, population (single pass, compression) or unobserved inputs"},
                 {"loss_tenth", "test loss after round(T/10) epochs (loss / loss_tenth: the gain of the last 90% of the compute)"},
                 {"loss_probe", "test loss after the first epoch whose compute reaches probe_C (NaN without probe_C or beyond T)"},
                 {"train_loss", "final KL on the training inputs (observed inputs in generalization)"},
                 {"flops", "compute spent: epochs x samples per epoch x 3(6 L d h + 2 d M)"},
                 {"epochs", "epochs run (optimizer steps)"},
                 {"chi", "statistical complexity of the drawn factorization"},
                 {"chi_bar", "approximation complexity of the drawn factorization"},
                 {"rank_logp", "rank of log p(y|x) up to column constants: the least d that represents p exactly (<= chi_bar)"},
                 {"N", "inputs"},
                 {"M", "outputs"},
                 {"observed", "training inputs (generalization: round(gamma N))"},
                 {"parameters", "trained parameters"},
                 {"entropy", "mean conditional entropy H(Y|X = x) over x (nats)"},
                 {"test_entropy", "mean H(Y|X = x) over the test inputs (unobserved in generalization; all otherwise)"},
                 {"diverged", "1 if the loss became non-finite"},
                 {"curve_epoch", "evaluation epochs", true},
                 {"curve_loss", "test loss after curve_epoch epochs", true},
                 {"curve_flops", "compute spent at curve_epoch", true}};
    // The learner's parameters, the observed fraction (nested observed sets) and the probe leave the
    // world alone: every value of them trains on the same drawn world for a run index, so curves
    // against d, epochs, lr or gamma compare learners on one world (training draws: training_stream).
    for (auto& p : m.params)
      if (std::find(training_param_names().begin(), training_param_names().end(), p.name) != training_param_names().end() ||
          p.name == "gamma" || p.name == "probe_C")
        p.same_world_param();
    m.fn = train_run;
    m.check = train_check;
    m.memory = train_bytes;
    m.work = train_work;
    reg.add(std::move(m));
  }
}

}  // namespace scalinglab
