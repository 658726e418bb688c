// The measures of the `skills` world, declared once: concept-text graphs and peeling, density
// evolution, the paper's mapping and the compute-optimal allocation (Sections 2-3.2, Appendices A-B).
#include "scalinglab/skills/skills_measures.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <memory>
#include <optional>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/skills/emergence.hpp"
#include "scalinglab/skills/skill_graph.hpp"
#include "scalinglab/skills/skill_simulation.hpp"
#include "scalinglab/skills/compute_optimal.hpp"
#include "scalinglab/skills/peeling.hpp"
#include "scalinglab/core/stats.hpp"

namespace scalinglab {

namespace {

using namespace skills;

// Hoffmann et al. (2022), Approach 3 fit: L(N, D) = E + A / N^alpha + B / D^beta (Figure 3b).
constexpr double kChinchillaA = 406.4, kChinchillaB = 410.7, kChinchillaAlpha = 0.34, kChinchillaBeta = 0.28;

// T, or texts_per_concept * R when that is positive (the x axis of the simulation comparisons).
double texts_of(const Params& prm, double R, double T) {
  const double k = prm.real("texts_per_concept");
  return k > 0 ? k * R : T;
}

// variant = "authors": the computation of the authors' code instead of the paper's (docs/skills.md).
bool authors_of(const Params& prm) { return prm.choice("variant") == "authors"; }

// rate = "eq24": the erasure rate (24) as printed instead of max((24), density evolution).
bool printed_rate_of(const Params& prm) { return prm.choice("rate") == "eq24"; }

// The budget C with the learning parameters of the measure (skills.optimum and its users).
ComputeBudget budget_of(const Params& prm, double C) {
  return {C,
          prm.real("varsigma"),
          prm.real("tau"),
          prm.real("d_t"),
          prm.real("eps"),
          prm.real("beta"),
          authors_of(prm),
          printed_rate_of(prm),
          prm.real("p_edge")};
}

// The mean text degree at R: d_t, or p_edge R for a dense graph (p_edge > 0).
double d_t_at(const Params& prm, double R) {
  const double p = prm.real("p_edge");
  return p > 0 ? p * R : prm.real("d_t");
}

void set_threshold(Record& r, const Threshold& t) {
  r.set("found", t.found ? 1.0 : 0.0);
  r.set("epsilon_star", t.found ? t.epsilon_star : kNaN);
  r.set("x_star", t.found ? t.x_star : kNaN);
  r.set("nu_star", t.found ? t.nu_star : kNaN);
  r.set("alpha", t.found ? t.alpha : kNaN);
  r.set("jump_from", t.found ? t.jump_from : kNaN);
}

Ensemble ensemble_of(const Params& prm) {
  const std::string kind = prm.choice("ensemble");
  const double l = prm.real("l"), r = prm.real("r");
  try {
    if (kind == "regular") return {DegreeDistribution::regular(l), DegreeDistribution::regular(r)};
    if (kind == "poisson") return {DegreeDistribution::poisson(l), DegreeDistribution::poisson(r)};
    if (kind == "binomial") {
      const double nl = prm.real("nl"), nr = prm.real("nr");
      if (l > nl || r > nr) throw InputError("binomial degrees need l <= nl and r <= nr");
      return {DegreeDistribution::binomial(nl, l / nl), DegreeDistribution::binomial(nr, r / nr)};
    }
    return {DegreeDistribution::polynomial(parse_number_list(prm.choice("lambda"))),
            DegreeDistribution::polynomial(parse_number_list(prm.choice("rho")))};
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("skills.threshold: ") + e.what());
  }
}

Record threshold_run(const Params& prm, Stream&) {
  const Ensemble e = ensemble_of(prm);
  const Threshold t = bp_threshold(e);
  Record r;
  set_threshold(r, t);
  const double eps = prm.real("eps");
  if (eps > 0) {
    r.set("fixed_point", de_fixed_point(e, eps));
    r.set("erasure_rate", de_erasure_rate(e, eps));
    const double n = prm.real("n");
    r.set("erasure_rate_finite", n > 0 ? finite_length_erasure_rate(t, n, eps, prm.real("beta")) : kNaN);
  }
  return r;
}

// Graphs count concepts, texts and edges in 32 bits (bipartite_graph.hpp): a larger value would
// wrap around, and a graph with UINT32_MAX edges or more is refused after it is built.
constexpr double kMaxCount = 4294967295.0, kMaxEdges = 4294967294.0;

// A count in plain digits ("6000000000", not "6e+09").
std::string digits(double value) { return fmt::format("{:.0f}", value); }

// `value`, named `what`, as a 32-bit count; InputError naming it and the maximum when it does not fit.
uint32_t count32(const std::string& measure, const std::string& what, double value) {
  if (!(value >= 0 && value <= kMaxCount))
    throw InputError(measure + ": " + what + " = " + digits(value) + " is more than the maximum of " +
                     digits(kMaxCount) + " (graphs count in 32 bits)");
  return static_cast<uint32_t>(value);
}

// Sizes of the concept-text graph of skills.peel and skills.pipeline: concepts, texts (checks) and
// edges (expected for the random ensembles), refused before anything is drawn when they do not fit.
struct GraphSize {
  uint32_t R = 0, T = 0;
  double edges = 0;
};

GraphSize graph_size(const Params& prm, const std::string& measure, const std::string& kind) {
  GraphSize g;
  g.R = count32(measure, "R", prm.real("R"));
  auto refuse_edges = [&](const std::string& what, double edges) {
    if (edges > kMaxEdges)
      throw InputError(measure + ": " + what + " = " + digits(edges) + " edges, more than the maximum of " +
                       digits(kMaxEdges) + " (graphs count in 32 bits)");
  };
  if (kind == "regular") {
    g.edges = prm.real("R") * prm.real("l");
    refuse_edges("R*l", g.edges);
    g.T = static_cast<uint32_t>(g.edges / prm.real("r"));
    return g;
  }
  const double k = prm.real("texts_per_concept");
  g.T = k > 0 ? count32(measure, "T = round(texts_per_concept*R)", std::round(k * prm.real("R")))
              : count32(measure, "T", prm.real("T"));
  g.edges = prm.real("d_t") * g.T;  // binomial: (d_t / R) R T; poisson: d_t per text
  refuse_edges("d_t*T (expected)", g.edges);
  return g;
}

// Bytes of a graph and its peeling: per edge both CSR lists (8.2 bytes with the reserve's margin),
// per text offsets, check states and frontiers (32), per concept offsets, fill pointers and masks (18).
double graph_bytes(const GraphSize& g) { return 8.2 * g.edges + 32.0 * g.T + 18.0 * g.R; }

// Bytes of one skills.peel run: its graph and the peeling.
double peel_bytes(const Params& prm) { return graph_bytes(graph_size(prm, "skills.peel", prm.choice("ensemble"))); }

Record peel_run(const Params& prm, Stream& stream) {
  const std::string kind = prm.choice("ensemble");
  const GraphSize size = graph_size(prm, "skills.peel", kind);
  const uint32_t R = size.R;
  const double d_t = prm.real("d_t"), erasure = prm.real("erasure");
  Stream graph_stream = stream.substream(0), erasure_stream = stream.substream(1);
  BipartiteGraph g;
  Ensemble theory;
  try {
    if (kind == "regular") {
      const auto l = static_cast<uint32_t>(prm.integer("l")), r = static_cast<uint32_t>(prm.integer("r"));
      g = regular_graph(R, l, r, graph_stream);
      theory = {DegreeDistribution::regular(l), DegreeDistribution::regular(r)};
    } else {
      const uint32_t T = size.T;
      if (d_t > R) throw InputError("skills.peel: d_t must be <= R");
      const double p = d_t / R;
      if (kind == "binomial") {
        g = binomial_graph(R, T, p, graph_stream);
        theory = {DegreeDistribution::binomial(T, p), DegreeDistribution::binomial(R, p)};
      } else {
        g = poisson_graph(R, T, d_t, graph_stream);
        theory = {DegreeDistribution::poisson(d_t * T / R), DegreeDistribution::poisson(d_t)};
      }
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("skills.peel: ") + e.what());
  }
  std::vector<uint8_t> erased;
  if (erasure < 1) {
    erased.resize(g.variables);
    for (auto& b : erased) b = erasure_stream.uniform() < erasure;
  }
  const PeelResult res = peel(g, erased.empty() ? nullptr : &erased);
  Record r;
  r.set("not_learnt", g.variables ? double(res.stopping_set) / g.variables : kNaN);
  r.set("learnt_fraction", res.erased ? double(res.recovered) / double(res.erased) : kNaN);
  r.set("stopping_set", static_cast<double>(res.stopping_set));
  r.set("rounds", res.rounds);
  r.set("edges", static_cast<double>(g.edges()));
  r.set("checks", g.checks);
  r.set("de_not_learnt", de_erasure_rate(theory, erasure));
  // The paper's finite-length approximation (24) as printed for the same R, T and d_t (concept
  // learning, eps = 0.5 as in the paper): what Eq. 4 predicts for this graph.
  double eq24 = kNaN;
  if (kind != "regular" && erasure == 1) {
    try {
      eq24 = concept_learning({static_cast<double>(R), static_cast<double>(size.T), d_t, 0.5, 0.0, false, true}).not_learnt_paper;
    } catch (const std::invalid_argument&) {
    }
  }
  r.set("eq24_not_learnt", eq24);
  return r;
}

Record learnt_run(const Params& prm, Stream&) {
  ConceptLearning c{prm.real("R"), texts_of(prm, prm.real("R"), prm.real("T")), d_t_at(prm, prm.real("R")), prm.real("eps"),
                    prm.real("beta"), authors_of(prm), printed_rate_of(prm)};
  ConceptLearningTheory t;
  try {
    t = concept_learning(c);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("skills.learnt: ") + e.what());
  }
  Record r;
  r.set("learnt", t.learnt);
  r.set("learnt_fraction", 1 - t.not_learnt);
  r.set("not_learnt", t.not_learnt);
  r.set("not_learnt_paper", t.not_learnt_paper);
  r.set("not_learnt_de", t.not_learnt_de);
  set_threshold(r, t.threshold);
  r.set("pe_train", t.pe_train);
  r.set("excess_entropy", t.excess_entropy);
  const double N = prm.real("varsigma") * c.R, D = prm.real("tau") * c.T;
  r.set("N", N);
  r.set("D", D);
  r.set("flops", 6 * N * D);
  // The compute-optimal point of the budget C (the markers of Figure 2), when C is given.
  const double C = prm.real("C");
  double R_star = kNaN, learnt_star = kNaN, eps_at_star = kNaN;
  if (C > 0) {
    try {
      const ComputeOptimum o =
          compute_optimum(budget_of(prm, C));
      R_star = o.R, learnt_star = o.theory.learnt;
      eps_at_star = o.theory.threshold.found ? o.theory.threshold.epsilon_star : kNaN;
    } catch (const std::invalid_argument&) {
      // budget too small for an optimum: the markers stay NaN
    }
  }
  r.set("R_star", R_star);
  r.set("learnt_star", learnt_star);
  r.set("epsilon_star_at_R_star", eps_at_star);
  return r;
}

Record optimum_run(const Params& prm, Stream&) {
  const ComputeBudget b = budget_of(prm, prm.real("C"));
  ComputeOptimum o;
  try {
    o = compute_optimum(b);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("skills.optimum: ") + e.what());
  }
  Record r;
  r.set("R_star", o.R);
  r.set("T_star", o.T);
  r.set("N_star", o.N);
  r.set("D_star", o.D);
  r.set("tokens_per_parameter", o.D / o.N);
  r.set("learnt_fraction", 1 - o.theory.not_learnt);
  r.set("epsilon_star", o.theory.threshold.epsilon_star);
  r.set("excess_entropy", o.theory.excess_entropy);
  r.set("chinchilla_excess", kChinchillaA / std::pow(o.N, kChinchillaAlpha) + kChinchillaB / std::pow(o.D, kChinchillaBeta));
  return r;
}

// eta_l and sigma_l as formulas of l (and L).
std::function<double(int)> level_formula(const std::string& text, int L) {
  auto expr = std::make_shared<Expression>(text);
  return [expr, L](int l) {
    return expr->eval([&](const std::string& name) -> std::optional<double> {
      if (name == "l") return static_cast<double>(l);
      if (name == "L") return static_cast<double>(L);
      return std::nullopt;
    });
  };
}

// The task's distribution over levels and sizes, as skills.emergence reads it.
void task_distribution(const Params& prm, int L, std::vector<double>& q_l, std::vector<double>& q_m) {
  q_l.assign(static_cast<std::size_t>(L) + 1, 0.0);
  const auto level = prm.integer("level");
  if (prm.choice("task") == "level") {
    if (level > L) throw InputError("level must be <= L");
    q_l[static_cast<std::size_t>(level)] = 1;
  } else {
    try {
      q_l = binomial_mixture(L, parse_number_list(prm.choice("weights")), parse_number_list(prm.choice("pi")));
    } catch (const std::invalid_argument& e) {
      throw InputError(e.what());
    }
  }
  const auto m_min = prm.integer("m_min"), m_max = prm.integer("m_max");
  if (m_min > m_max) throw InputError("m_min must be <= m_max");
  q_m.assign(static_cast<std::size_t>(m_max) + 1, 0.0);
  for (auto m = m_min; m <= m_max; ++m) q_m[static_cast<std::size_t>(m)] = 1.0 / static_cast<double>(m_max - m_min + 1);
}

// The accuracy of a task along the compute-optimal frontier, scanned over C = logspace(1e16, 1e32)
// at 20 points per decade: the budgets where it first reaches rise_from and rise_to (e.g. 0.1 and
// 0.9; the crossing interpolated linearly in log10 C, NaN when not reached in that range), and the
// decades of compute it spends in each band [0.05, 0.15), ..., [0.85, 0.95) (its plateaus).
constexpr int kDwellBands = 9;
// "dwell_40": the band around 0.4.
std::string dwell_name(int k) { return fmt::format("dwell_{}", 10 * (k + 1)); }
struct AccuracyScan {
  double from = kNaN, to = kNaN;
  std::array<double, kDwellBands> dwell{};  // band k: accuracy in [0.1 (k + 1) - 0.05, 0.1 (k + 1) + 0.05)
};

AccuracyScan accuracy_scan(const Params& prm, SkillHierarchy h, const std::vector<double>& q_l,
                           const std::vector<double>& q_m) {
  const double lo = prm.real("rise_from"), hi = prm.real("rise_to");
  if (!(lo < hi)) throw InputError("skills.emergence: rise_from must be < rise_to");
  constexpr int kPerDecade = 20, kFirst = 16, kLast = 32;
  AccuracyScan scan;
  double previous_acc = kNaN, previous_logC = kNaN;
  for (int i = kFirst * kPerDecade; i <= kLast * kPerDecade; ++i) {
    const double logC = static_cast<double>(i) / kPerDecade;
    ComputeOptimum o;
    try {
      o = compute_optimum(budget_of(prm, std::pow(10.0, logC)));
    } catch (const std::invalid_argument&) {
      continue;  // budget too small for an optimum
    }
    h.R = o.R, h.T = o.T, h.d_t = d_t_at(prm, o.R);
    const double acc = task_accuracy(skill_levels(h), q_l, q_m);
    auto cross = [&](double level, double& at) {
      if (!std::isnan(at) || acc < level) return;
      at = std::isnan(previous_acc) ? std::pow(10.0, logC)
                                    : std::pow(10.0, previous_logC + (level - previous_acc) / (acc - previous_acc) *
                                                                         (logC - previous_logC));
    };
    cross(lo, scan.from);
    cross(hi, scan.to);
    const int band = static_cast<int>(std::floor(acc * 10 + 0.5)) - 1;  // nearest 0.1 (k + 1)
    if (band >= 0 && band < kDwellBands) scan.dwell[static_cast<std::size_t>(band)] += 1.0 / kPerDecade;
    if (!std::isnan(scan.to) && acc >= 0.95) break;  // past the rise and the last band
    previous_acc = acc, previous_logC = logC;
  }
  return scan;
}

Record emergence_run(const Params& prm, Stream&) {
  const double C = prm.real("C");
  double R = prm.real("R"), T = prm.real("T");
  T = texts_of(prm, R, T);
  if (C > 0) {  // the compute-optimal (R*, T*) of skills.optimum
    try {
      const ComputeOptimum o =
          compute_optimum(budget_of(prm, C));
      R = o.R, T = o.T;
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("skills.emergence: ") + e.what());
    }
  }
  const int L = static_cast<int>(prm.integer("L"));
  SkillHierarchy h;
  h.R = R, h.T = T, h.d_t = d_t_at(prm, R), h.S = prm.real("S"), h.L = L;
  h.eta = level_formula(prm.choice("eta"), L);
  h.sigma = level_formula(prm.choice("sigma"), L);
  h.monotone_bound = prm.choice("bound") == "monotone";
  SkillLevels s;
  try {
    s = skill_levels(h);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("skills.emergence: ") + e.what());
  }
  std::vector<double> q_l, q_m;
  try {
    task_distribution(prm, L, q_l, q_m);
  } catch (const InputError& e) {
    throw InputError(std::string("skills.emergence: ") + e.what());
  }
  const bool one_level = prm.choice("task") == "level";
  const auto level = prm.integer("level");
  Record r;
  r.set("accuracy", task_accuracy(s, q_l, q_m));
  r.set("R_star", C > 0 ? R : kNaN);
  r.set("T_star", C > 0 ? T : kNaN);
  r.set("N", prm.real("varsigma") * R);
  r.set("D", prm.real("tau") * T);
  {
    double mean = 0;
    int modes = 0;
    for (std::size_t l = 0; l < q_l.size(); ++l) {
      mean += static_cast<double>(l) * q_l[l];
      const double left = l > 0 ? q_l[l - 1] : 0.0, right = l + 1 < q_l.size() ? q_l[l + 1] : 0.0;
      if (q_l[l] > left && q_l[l] >= right) ++modes;
    }
    r.set("level_mean", mean);
    r.set("level_modes", modes);
  }
  if (prm.flag("rise")) {
    const AccuracyScan scan = accuracy_scan(prm, h, q_l, q_m);
    r.set("C_rise_from", scan.from);
    r.set("C_rise_to", scan.to);
    r.set("rise_decades", std::log10(scan.to / scan.from));
    for (int k = 0; k < kDwellBands; ++k) r.set(dwell_name(k), scan.dwell[static_cast<std::size_t>(k)]);
  } else {
    r.set("C_rise_from", kNaN);
    r.set("C_rise_to", kNaN);
    r.set("rise_decades", kNaN);
    for (int k = 0; k < kDwellBands; ++k) r.set(dwell_name(k), kNaN);
  }
  r.set("path_mean", R * (R - 1) / 2 * s.p_rr);
  if (one_level) {
    r.set("gamma_level", s.gamma[static_cast<std::size_t>(level)]);
    r.set("degree_level", level > 0 ? s.p[static_cast<std::size_t>(level)] * h.S : kNaN);
  }
  std::vector<double> levels(static_cast<std::size_t>(L) + 1);
  for (int l = 0; l <= L; ++l) levels[static_cast<std::size_t>(l)] = l;
  r.set_series("level", std::move(levels));
  r.set_series("gamma", s.gamma);
  r.set_series("p", s.p);
  r.set_series("q_level", std::move(q_l));
  return r;
}

Record pipeline_run(const Params& prm, Stream& stream) {
  PipelineSpec spec;
  const GraphSize size = graph_size(prm, "skills.pipeline", "binomial");
  spec.R = size.R;
  spec.T = size.T;
  spec.d_t = prm.real("d_t");
  spec.S = count32("skills.pipeline", "S", prm.real("S"));
  spec.L = static_cast<int>(prm.integer("L"));
  spec.eta = level_formula(prm.choice("eta"), spec.L);
  spec.sigma = level_formula(prm.choice("sigma"), spec.L);
  std::vector<double> q_l, q_m;
  try {
    task_distribution(prm, spec.L, q_l, q_m);
  } catch (const InputError& e) {
    throw InputError(std::string("skills.pipeline: ") + e.what());
  }
  spec.max_m = static_cast<int>(q_m.size()) - 1;
  PipelineResult res;
  try {
    res = simulate_pipeline(spec, stream);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("skills.pipeline: ") + e.what());
  }
  double acc = 0;
  for (std::size_t l = 0; l < q_l.size(); ++l)
    for (std::size_t m = 0; m < q_m.size(); ++m) acc += q_l[l] * q_m[m] * res.same_component[l][m];
  Record r;
  r.set("accuracy", acc);
  r.set("learnt_fraction", res.learnt_fraction);
  r.set("concept_pairs", static_cast<double>(res.concept_pairs));
  if (prm.choice("task") == "level") {
    const auto l = static_cast<std::size_t>(prm.integer("level"));
    r.set("gamma_level", res.largest[l]);
  }
  std::vector<double> levels(res.largest.size());
  for (std::size_t l = 0; l < levels.size(); ++l) levels[l] = static_cast<double>(l);
  r.set_series("level", std::move(levels));
  r.set_series("gamma", res.largest);
  r.set_series("acquired", res.acquired);
  return r;
}

// Bytes of one skills.pipeline run: the peeled graph, the co-occurring concept pairs (T d_t^2 (R-1)/(2R)
// expected, 8 bytes each, up to 3x while the vector grows), each concept's skill, the S x S pair
// counters and the per-level results.
double pipeline_bytes(const Params& prm) {
  const GraphSize g = graph_size(prm, "skills.pipeline", "binomial");
  const double R = g.R, d_t = prm.real("d_t"), S = prm.real("S"), L = prm.real("L");
  const double pairs = g.T * d_t * d_t * (R - 1) / (2 * R);
  return graph_bytes(g) + 24 * pairs + 4 * R + 4 * S * S + 16 * S + (L + 1) * (8 * prm.real("m_max") + 400);
}

// Work of one skills.pipeline run: drawing and peeling the graph, listing the co-occurring concept
// pairs, and per level the concepts' skills, round(sigma_l) prerequisite draws per skill, a pass over
// the pairs and the S x S counters.
double pipeline_work(const Params& prm) {
  const GraphSize g = graph_size(prm, "skills.pipeline", "binomial");
  const double R = g.R, d_t = prm.real("d_t"), S = prm.real("S");
  const int L = static_cast<int>(prm.integer("L"));
  const double pairs = g.T * d_t * d_t * (g.R - 1) / (2 * R);
  const auto sigma = level_formula(prm.choice("sigma"), L);
  double work = 10 * (g.T + R + g.edges) + 4 * pairs;
  for (int l = 1; l <= L; ++l) {
    const double s = l == 1 ? 0.0 : std::round(sigma(l));
    work += R + pairs + 3 * S * S + S * (std::isfinite(s) ? std::max(s, 0.0) : 0.0);
  }
  return work;
}

Record gcc_run(const Params& prm, Stream& stream) {
  const double c = prm.real("c");
  Record r;
  r.set("gamma", giant_component_fraction(c));
  const auto S = prm.integer("S");
  if (S > 0) {
    const ErdosRenyiComponents g =
        erdos_renyi_components(count32("skills.gcc", "S", static_cast<double>(S)), c / static_cast<double>(S), stream);
    r.set("gamma_simulated", double(g.largest) / double(S));
    r.set("components", static_cast<double>(g.components));
  }
  return r;
}

// Bytes of one skills.gcc run: the union-find of the simulated graph (edges are not stored).
double gcc_bytes(const Params& prm) { return 8 * prm.real("S"); }

// The task of skills.emergence and skills.pipeline: one level, or a binomial mixture over levels,
// of subtasks needing m_min..m_max skills.
std::vector<ParamSpec> task_params(const std::string& task, const std::string& level) {
  return {choice_param("task", task, {"level", "mixture"}, "task: skills of one level, or a mixture over levels"),
          int_param("level", level, "task=level: the level", 0, 100000),
          text_param("weights", "1", "task=mixture: weights w_i", number_list_validator()),
          text_param("pi", "0.5", "task=mixture: Binomial(L, pi_i) components", number_list_validator()),
          int_param("m_min", "2", "smallest number of skills a subtask needs", 0, 1000),
          int_param("m_max", "7", "largest number of skills a subtask needs", 0, 1000)};
}

std::vector<ParamSpec> learning_params() {
  return {real_param("d_t", "6", "mean text degree: concepts per text (edge probability d_t / R)", 1e-9, 1e9),
          real_param("eps", "0.5", "erasure fraction of the paper's parent graph (A.2; 0.5 in the paper)", 1e-6, 1 - 1e-6),
          real_param("beta", "0", "shift term beta n^(-2/3) of the finite-length approximation (0: none)", -1e3, 1e3),
          real_param("varsigma", "2e5", "parameters per concept: N = varsigma R", 1e-9, 1e30),
          real_param("tau", "8e5", "tokens per text: D = tau T", 1e-9, 1e30),
          choice_param("variant", "paper", {"paper", "authors"},
                       "paper: eqs. (3)-(4), (23)-(26) as read in docs/skills.md; authors: what the authors' code computes"),
          choice_param("rate", "max", {"max", "eq24"},
                       "variant=paper: P_b = max((24), density evolution) (docs/skills.md), or eq24: (24) as printed "
                       "(density evolution where the parent graph has no threshold)"),
          real_param("p_edge", "0",
                     "if > 0: a dense concept-text graph, each pair linked with this fixed probability, so texts carry "
                     "d_t = p_edge R concepts (not the paper's; a counterfactual); 0: the paper's p = d_t/R",
                     0, 1)};
}

}  // namespace

void register_skills_measures(Registry& reg) {
  const std::vector<MetricSpec> threshold_metrics = {
      {"found", "1 if density evolution has a threshold (a jump of its largest fixed point)"},
      {"epsilon_star", "BP threshold eps* (eq. 23; the jump of the largest fixed point where lambda(0) > 0)"},
      {"x_star", "critical fixed point x* at the threshold"},
      {"nu_star", "eps* L(1 - rho(1 - x*)): fraction of variables erased at the tangency"},
      {"alpha", "finite-length scaling parameter (R&U Sec. 3.23; eqs. 25-26)"},
      {"jump_from", "largest fixed point just below eps* (0 without erasure floor)"}};
  {
    Measure m;
    m.name = "skills.threshold";
    m.summary = "BP threshold eps*, x*, nu* and alpha of an LDPC ensemble on the erasure channel (density evolution)";
    m.details =
        "Density evolution x <- eps lambda(1 - rho(1 - x)) for the degree-distribution pair (lambda, rho) of variables\n"
        "(concepts) and checks (texts), edge perspective (R&U, Modern Coding Theory, Secs. 3.9-3.23). ensemble=regular:\n"
        "degrees l and r; poisson: Poisson degrees of means l and r; binomial: Binomial(nl, l/nl) and Binomial(nr, r/nr);\n"
        "polynomial: edge-perspective coefficients lambda=\"l1,l2,...\" (l_i: fraction of edges on degree-i nodes) and rho.\n"
        "eps* is the jump of the largest fixed point (with lambda(0) > 0 there is an erasure floor; see docs/skills.md).\n"
        "With eps > 0 also the fixed point x(eps), the asymptotic erasure rate eps L(1 - rho(1 - x(eps))) and, with n > 0,\n"
        "the finite-length approximation nu* Q(sqrt(n)(eps* - beta n^(-2/3) - eps)/alpha).";
    m.params = {choice_param("ensemble", "regular", {"regular", "poisson", "binomial", "polynomial"}, "degree distributions"),
                real_param("l", "3", "variable degree (regular) or mean variable degree", 1, 1e9),
                real_param("r", "6", "check degree (regular) or mean check degree", 1, 1e9),
                real_param("nl", "1000", "binomial: trials of the variable degrees", 1, 1e12),
                real_param("nr", "1000", "binomial: trials of the check degrees", 1, 1e12),
                text_param("lambda", "0,0,1", "polynomial: edge-perspective variable coefficients (degrees 1, 2, ...)",
                           number_list_validator()),
                text_param("rho", "0,0,0,0,0,1", "polynomial: edge-perspective check coefficients", number_list_validator()),
                real_param("eps", "0", "erasure probability for fixed_point/erasure_rate (0: not computed)", 0, 1),
                real_param("n", "0", "number of variables for erasure_rate_finite (0: not computed)", 0, 1e15),
                real_param("beta", "0", "shift term of the finite-length approximation", -1e3, 1e3)};
    m.metrics = threshold_metrics;
    m.metrics.push_back({"fixed_point", "eps > 0: largest fixed point x(eps)"});
    m.metrics.push_back({"erasure_rate", "eps > 0: eps L(1 - rho(1 - x(eps))), the infinite-graph bit erasure rate"});
    m.metrics.push_back({"erasure_rate_finite", "eps > 0, n > 0: nu* Q(sqrt(n)(eps* - beta n^(-2/3) - eps)/alpha) (eq. 24)"});
    m.fn = threshold_run;
    m.deterministic = true;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "skills.peel";
    m.summary = "peeling (BP on the erasure channel) on a random concept-text graph: concepts learnt, rounds, stopping set";
    m.details =
        "Draws a concept-text graph and peels it (Section 2.3): a concept is learnt from a text whose other concepts are\n"
        "learnt. ensemble=binomial: each (text, concept) pair is an edge with probability d_t/R (the paper); poisson:\n"
        "Poisson(d_t) concepts per text, uniform with replacement; regular: R concepts of degree l, R l / r texts of degree\n"
        "r (T is ignored). erasure < 1 makes each concept known beforehand with probability 1 - erasure (decoding an LDPC\n"
        "code on the erasure channel); erasure = 1 is concept learning. de_not_learnt is density evolution's prediction\n"
        "of not_learnt for the ensemble drawn. O(edges) time and memory (about 10 bytes per edge).";
    m.params = {choice_param("ensemble", "binomial", {"binomial", "poisson", "regular"}, "graph ensemble"),
                int_param("R", "10000", "concepts (variable nodes)", 1, 4e9),
                int_param("T", "50000", "texts (check nodes); regular: R l / r", 0, 4e9).allow_expression(),
                real_param("d_t", "6", "mean text degree (binomial: edge probability d_t / R)", 0, 1e6),
                int_param("l", "3", "regular: concept degree", 1, 1000),
                int_param("r", "6", "regular: text degree", 1, 1000),
                real_param("erasure", "1", "probability that a concept is unknown at the start (1: all)", 0, 1),
                real_param("texts_per_concept", "0", "if > 0: T = round(texts_per_concept R), overriding T", 0, 1e9)};
    m.metrics = {{"not_learnt", "fraction of all concepts left unknown (the stopping set over R)"},
                 {"learnt_fraction", "fraction of the unknown concepts learnt by peeling"},
                 {"stopping_set", "number of concepts left unknown"},
                 {"rounds", "parallel peeling rounds that learnt something"},
                 {"edges", "edges of the graph drawn"},
                 {"checks", "texts of the graph drawn"},
                 {"de_not_learnt", "density evolution's asymptotic fraction left unknown, for this ensemble"},
                 {"eq24_not_learnt", "binomial and poisson ensembles, erasure = 1: the paper's finite-length approximation (24) "
                                     "as printed for this R, T and d_t (Eq. 4; NaN otherwise or without a threshold)"}};
    m.fn = peel_run;
    m.memory = peel_bytes;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "skills.learnt";
    m.summary = "E[R+]: concepts learnt from T texts by a model of R concepts, by the paper's LDPC mapping (eqs. 2-4, 24)";
    m.details =
        "The parent graph of Appendix A.2: concepts Binomial(T, p), texts Binomial(R/eps, p), p = d_t/R; its BP threshold\n"
        "eps*, x*, nu*, alpha; Pr{concept not learnt} = P_b/eps (3) with the finite-length approximation (24),\n"
        "P_b = nu* Q(sqrt(R/eps)(eps* - beta (R/eps)^(-2/3) - eps)/alpha), taken at least as large as density evolution's\n"
        "infinite-graph value (not_learnt_paper keeps (24) as printed; see docs/skills.md for why); E[R+] = R(1 - P_b/eps);\n"
        "the training-error bound (31) and the excess-entropy bound (8). T may be a formula, e.g. C/(6*varsigma*tau*R) for\n"
        "isoFLOP curves. N = varsigma R, D = tau T. With C > 0 also R* of skills.optimum for that budget, E[R+] and eps* there\n"
        "(Figure 2's markers). rate=eq24 takes (24) as printed for P_b instead (density evolution only where there is no\n"
        "threshold). variant=authors computes what the authors' code does instead (docs/skills.md).";
    m.params = {real_param("R", "3.5e5", "concepts (model size N = varsigma R)", 1, 1e15),
                real_param("T", "1.75e6", "texts (data D = tau T); formula allowed", 1, 1e18).allow_expression(),
                real_param("C", "0", "compute budget in FLOPs, for formulas of T and the optimum R* (0: none)", 0, 1e40),
                real_param("texts_per_concept", "0", "if > 0: T = texts_per_concept R, overriding T", 0, 1e9)};
    for (auto& p : learning_params()) m.params.push_back(p);
    m.metrics = {{"learnt", "E[R+] = R (1 - not_learnt) (eq. 4)"},
                 {"learnt_fraction", "1 - not_learnt"},
                 {"not_learnt", "Pr{concept not learnt} = P_b/eps, P_b = max((24), density evolution)"},
                 {"not_learnt_paper", "(24)/eps as printed (NaN without a threshold)"},
                 {"not_learnt_de", "density evolution's infinite-graph fraction not learnt"}};
    for (const auto& mm : threshold_metrics) m.metrics.push_back(mm);
    m.metrics.push_back({"pe_train", "training-error lower bound (31)"});
    m.metrics.push_back({"excess_entropy", "excess-entropy lower bound (8): pe_train^2 / 2"});
    m.metrics.push_back({"N", "model size varsigma R"});
    m.metrics.push_back({"D", "data size tau T"});
    m.metrics.push_back({"flops", "6 N D"});
    m.metrics.push_back({"R_star", "C > 0: the compute-optimal R* of skills.optimum for the budget C (NaN otherwise)"});
    m.metrics.push_back({"learnt_star", "C > 0: E[R+] at R*, the top of the isoFLOP curve (Figure 2's markers)"});
    m.metrics.push_back({"epsilon_star_at_R_star", "C > 0: the threshold eps* at R* (NaN without one)"});
    m.fn = learnt_run;
    m.deterministic = true;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "skills.optimum";
    m.summary = "compute-optimal (N*, D*) for a budget C: maximise E[R+] subject to R T = C/(6 varsigma tau) (eq. 1)";
    m.details =
        "Section 3.1: R* maximises skills.learnt's E[R+] along T = C/(6 varsigma tau R) (R, T real; a scan of log R where T/R\n"
        "spans [0.1, 1000], then golden-section search). N* = varsigma R*, D* = tau T*. Figure 3 uses varsigma = 2e5,\n"
        "tau = 8e5, d_t = 6, and marks Chinchilla's (70e9, 1.4e12) at C = 5.76e23. excess_entropy is the lower bound (8) at\n"
        "the optimum; chinchilla_excess is Hoffmann et al.'s fitted A/N^alpha + B/D^beta (A = 406.4, B = 410.7,\n"
        "alpha = 0.34, beta = 0.28) at (N*, D*), the comparison of Figure 3b.";
    m.params = {real_param("C", "5.76e23", "compute budget in FLOPs", 1, 1e40)};
    for (auto& p : learning_params()) m.params.push_back(p);
    m.metrics = {{"R_star", "optimal number of concepts"},
                 {"T_star", "optimal number of texts"},
                 {"N_star", "optimal model size varsigma R*"},
                 {"D_star", "optimal data size tau T*"},
                 {"tokens_per_parameter", "D* / N*"},
                 {"learnt_fraction", "E[R+]/R at the optimum"},
                 {"epsilon_star", "threshold of the parent ensemble at the optimum"},
                 {"excess_entropy", "excess-entropy lower bound (8) at the optimum"},
                 {"chinchilla_excess", "Hoffmann et al.'s A/N*^alpha + B/D*^beta"}};
    m.fn = optimum_run;
    m.deterministic = true;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "skills.emergence";
    m.summary = "accuracy of a task composing skills: the giant components of the skill graphs, level by level (Secs. 3.3-3.4)";
    m.details =
        "Appendix C's recursion from gamma_0 = 1: p_l >= Pr(X >= eta_l) gamma_{l-1}^(2 sigma_l) with X ~ Binomial(R(R-1)/2,\n"
        "p_rr), p_rr = (1/S^2)(1 - (1 - d_t^2/R^2)^T) (9, 32); gamma_l = 1 + W_0(-c e^-c)/c, c = p_l S (11). Accuracy (12)-(13):\n"
        "sum over levels l and task sizes m of q(l) q(m) gamma_l^m, with q(m) uniform on [m_min, m_max] and q(l) either one\n"
        "level (task=level) or sum_i w_i Binomial(L, pi_i) over l = 0..L (task=mixture: Figure 4's Binomial(L, 1/2) is\n"
        "weights=1 pi=0.5, its multimodal task weights=0.4,0.4,0.2 pi=0.2,0.6,0.95). eta and sigma are formulas of l and L\n"
        "(Figure 4: exp(7*l/L) and log2(l); sigma_1 = 0). With C > 0, (R, T) is skills.optimum's (R*, T*) for that budget.\n"
        "bound=monotone (default) corrects a dip of the bound (32) near eta = n p_rr (docs/skills.md); bound=paper is literal.\n"
        "\"At least eta paths\" is X >= ceil(eta). With rise=true the budget is scanned (1e16..1e32, 20 points per decade) for\n"
        "where the accuracy first reaches rise_from and rise_to: the width of the emergence, rise_decades; and the decades\n"
        "it spends in each band of width 0.1 around 0.1, ..., 0.9 (dwell_10 .. dwell_90: a plateau is a long dwell).";
    m.params = {real_param("C", "0", "compute budget in FLOPs: if > 0, R and T are the compute-optimal R*, T*", 0, 1e40),
                real_param("R", "3.5e5", "concepts (when C = 0)", 2, 1e15),
                real_param("T", "1.75e6", "texts (when C = 0); formula allowed", 1, 1e18).allow_expression(),
                real_param("texts_per_concept", "0", "if > 0 (and C = 0): T = texts_per_concept R", 0, 1e9),
                real_param("S", "1000", "skills per level S^(l)", 1, 1e12),
                int_param("L", "100", "number of skill levels", 1, 100000),
                text_param("eta", "exp(7*l/L)", "eta_l: concept-pair paths needed to compose two skills of level l",
                           formula_validator({"l", "L"})),
                text_param("sigma", "log2(l)", "sigma_l: prerequisites of a level-l skill (sigma_1 = 0 always)",
                           formula_validator({"l", "L"})),
                choice_param("bound", "monotone", {"monotone", "paper"}, "the bound (32) as printed, or corrected near eta = n p"),
                bool_param("rise", "false", "also scan the budget C for where the accuracy rises (C_rise_from, C_rise_to)"),
                real_param("rise_from", "0.1", "rise: the lower accuracy level", 0, 1),
                real_param("rise_to", "0.9", "rise: the upper accuracy level", 0, 1)};
    for (auto& p : task_params("mixture", "50")) m.params.push_back(p);
    for (auto& p : learning_params()) m.params.push_back(p);
    m.metrics = {{"accuracy", "task accuracy lower bound (12)/(13)"},
                 {"R_star", "C > 0: the compute-optimal R* used (NaN when C = 0: R is the parameter)"},
                 {"T_star", "C > 0: the compute-optimal T* used (NaN when C = 0)"},
                 {"N", "model size varsigma R"},
                 {"D", "data size tau T"},
                 {"path_mean", "mean number of concept-pair paths between two skills, R(R-1)/2 p_rr"},
                 {"gamma_level", "task=level: gamma of that level"},
                 {"degree_level", "task=level: mean degree p_l S of that level's skill graph (emergence at 1)"},
                 {"level_mean", "mean skill level of the task, sum_l l q(l)"},
                 {"level_modes", "number of local maxima (modes) of q(l) over l = 0..L"},
                 {"C_rise_from", "rise: the budget C where the accuracy (at compute-optimal sizes) first reaches rise_from"},
                 {"C_rise_to", "rise: the budget C where it first reaches rise_to"},
                 {"rise_decades", "rise: log10(C_rise_to / C_rise_from), the width of the emergence in decades of compute"},
                 {"dwell_10", "rise: decades of compute (scanned at 20 per decade) the accuracy spends in [0.05, 0.15)"},
                 {"dwell_20", "rise: the same in [0.15, 0.25)"},
                 {"dwell_30", "rise: the same in [0.25, 0.35)"},
                 {"dwell_40", "rise: the same in [0.35, 0.45): a plateau at 0.4 is a long dwell"},
                 {"dwell_50", "rise: the same in [0.45, 0.55)"},
                 {"dwell_60", "rise: the same in [0.55, 0.65)"},
                 {"dwell_70", "rise: the same in [0.65, 0.75)"},
                 {"dwell_80", "rise: the same in [0.75, 0.85)"},
                 {"dwell_90", "rise: the same in [0.85, 0.95)"},
                 {"level", "levels 0..L", true},
                 {"gamma", "gamma_l, the giant-component fraction of each level", true},
                 {"p", "p_l, the composition probability of each level (NaN at 0)", true},
                 {"q_level", "the task's distribution over levels", true}};
    m.fn = emergence_run;
    m.deterministic = true;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "skills.pipeline";
    m.summary = "the concept -> skill -> composition pipeline simulated: peeling, skill graphs, union-find, task accuracy";
    m.details =
        "Beyond the paper (docs/skills.md): a binomial concept-text graph is drawn and peeled; at every level each concept\n"
        "joins a random skill and each skill gets round(sigma_l) random prerequisites one level below; a skill is acquired\n"
        "when its prerequisites are and one of its concepts is learnt; two skills are linked when >= eta_l distinct\n"
        "co-occurring concept pairs join them and both skills' prerequisites are acquired (Sec. 2.4). The accuracy of a task\n"
        "of m skills is the exact probability that m random skills of the level lie in one component (union-find), mixed\n"
        "over q(l) q(m) as skills.emergence does, whose parameters (task, level, weights, pi, m_min, m_max, eta, sigma) it\n"
        "shares for overlays. Note: it counts each unordered concept pair once per skill pair, twice the paper's p_rr.";
    m.params = {int_param("R", "2000", "concepts", 2, 4e9),
                int_param("T", "10000", "texts", 1, 4e9),
                real_param("texts_per_concept", "0", "if > 0: T = round(texts_per_concept R)", 0, 1e9),
                real_param("d_t", "6", "mean text degree", 1e-9, 1e6),
                int_param("S", "100", "skills per level", 2, 20000),
                int_param("L", "10", "levels", 1, 10000),
                text_param("eta", "exp(7*l/L)", "eta_l, formula of l and L", formula_validator({"l", "L"})),
                text_param("sigma", "round(log2(l))", "sigma_l, formula of l and L (rounded)", formula_validator({"l", "L"}))};
    for (auto& p : task_params("level", "3")) m.params.push_back(p);
    m.metrics = {{"accuracy", "simulated task accuracy"},
                 {"learnt_fraction", "concepts learnt by peeling / R"},
                 {"concept_pairs", "distinct co-occurring concept pairs"},
                 {"gamma_level", "task=level: largest component / S at that level"},
                 {"level", "levels 0..L", true},
                 {"gamma", "largest component / S per level", true},
                 {"acquired", "acquired skills / S per level", true}};
    m.fn = pipeline_run;
    m.memory = pipeline_bytes;
    m.work = pipeline_work;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "skills.gcc";
    m.summary = "giant-component fraction gamma(c) of an Erdos-Renyi graph of mean degree c, in theory (11) and simulated";
    m.details =
        "gamma = 1 - exp(-c gamma): 1 + W_0(-c e^-c)/c for c > 1 (Lambert W, Boost.Math; solved directly within 0.05 of c = 1),\n"
        "0 for c <= 1. With S > 0 also draws G(S, c/S) (edges by geometric skips, O(S + edges)) and reports its largest\n"
        "component over S (union-find).";
    m.params = {real_param("c", "2", "mean degree", 0, 1e9),
                int_param("S", "0", "nodes of a simulated graph (0: theory only)", 0, 2e9)};
    m.metrics = {{"gamma", "giant-component fraction (11)"},
                 {"gamma_simulated", "S > 0: largest component / S of one drawn graph"},
                 {"components", "S > 0: number of connected components"}};
    m.fn = gcc_run;
    m.memory = gcc_bytes;
    reg.add(std::move(m));
  }
}

}  // namespace scalinglab
