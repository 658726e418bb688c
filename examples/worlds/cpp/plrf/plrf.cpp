// The power-law random features world (Paquette, Paquette, Xiao, Pennington 2024, "4+3 Phases of
// Compute-Optimal Neural Scaling Laws", arXiv 2405.15074) as a scalinglab plugin:
//
//   cmake -S examples/worlds/cpp/plrf -B build/plrf && cmake --build build/plrf
//   build/scalinglab run examples/worlds/cpp/plrf/compute-optimal-phase3.toml
//       --plugin build/plrf/libplrf.so --profile quick --out results/plrf-phase3
//
// Measures: plrf.loss (one-pass SGD, the loss after f/d steps and along training) and
// plrf.expected (E[loss | W] along the same training, exactly, by the second-moment recursion).
// The model and the samplers are in plrf_core.hpp.
#include <scalinglab/world_plugin.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "plrf_core.hpp"

namespace slp = scalinglab::plugin;

namespace {

std::vector<slp::ParamDecl> params(bool with_sampler) {
  std::vector<slp::ParamDecl> p = {
      slp::real("alpha", "1.5", "data complexity: x_j ~ N(0, j^(-2 alpha))", 0.05, 20),
      slp::real("beta", "2", "target complexity: b_j = j^(-beta)", -5, 20),
      slp::integer("v", "4096", "data dimension (the paper takes v > d; fixed across a sweep over d, one world)", 1, 1e7),
      slp::integer("d", "64", "model size: parameters = random features (W has N(0, 1/d) entries); the model of size d "
                              "uses the first d features of one bank, so every d sees the same world",
                   1, 65536)
          .same_world_param()
          .allow_expression(),
      slp::real("f", "0", "compute budget in flops, f = d x samples (the paper's count); read by formulas of steps, "
                          "e.g. steps = f/d",
                0, 1e18)
          .same_world_param(),
      slp::integer("steps", "1000", "SGD steps r (a formula allowed, e.g. f/d or f/(d*batch))", 0, 1e13)
          .same_world_param()
          .allow_expression(),
      slp::integer("batch", "1", "batch size B (the gradient is averaged over the batch)", 1, 1e6).same_world_param(),
      slp::real("lr", "0.25", "step size gamma = lr / tr(W^T D W) (E tr = sum_{j<=v} j^(-2 alpha)); E[loss] stays bounded "
                              "for every draw of W when lr < 2B/(B+2) (2/3 at batch 1); at batch 1 the loss of one run has a "
                              "finite variance only for lr below about 0.35 (heavy-tailed spikes above)",
                0, 100)
          .same_world_param(),
      slp::integer("points", "40", "points of the learning curve (log-spaced steps)", 2, 10000).same_world_param(),
  };
  if (with_sampler)
    p.push_back(slp::choice("sampler", "eigen", {"eigen", "direct"},
                            "eigen: SGD in the eigenbasis of W^T D W with exactly distributed features and residual "
                            "(O(d) a sample, the paper's flop count); direct: x in R^v drawn and W^T x formed "
                            "(O(v d) a sample); the same law of trajectories")
                    .same_world_param());
  return p;
}

plrf::Config config(const slp::Args& a) {
  plrf::Config c;
  c.alpha = a.real("alpha");
  c.beta = a.real("beta");
  c.v = a.integer("v");
  c.d = a.integer("d");
  c.batch = a.integer("batch");
  c.lr = a.real("lr");
  c.seed = a.seed();
  return c;
}

void check(const slp::Args& a) {
  if (a.integer("v") < a.integer("d"))
    throw std::invalid_argument("the model needs v >= d (the paper's v is larger than d): raise v or lower d");
}

void report(const plrf::Config& c, const plrf::Spectrum& s, int64_t steps, const plrf::Curve& curve, slp::Result& r) {
  const double per_step = static_cast<double>(c.d) * static_cast<double>(c.batch);
  std::vector<double> flops(curve.steps.size());
  for (std::size_t i = 0; i < flops.size(); ++i) flops[i] = per_step * curve.steps[i];
  r.set("loss", curve.final_loss);
  r.set("loss_best", s.loss_star);
  r.set("loss_zero", s.loss_zero);
  r.set("flops", per_step * static_cast<double>(steps));
  r.set("diverged", curve.diverged ? 1.0 : 0.0);
  r.set_series("curve_flops", flops);
  r.set_series("curve_loss", curve.loss);
}

double work(const slp::Args& a, bool direct) {
  const double v = static_cast<double>(a.integer("v")), d = static_cast<double>(a.integer("d"));
  const double samples = static_cast<double>(a.integer("steps")) * static_cast<double>(a.integer("batch"));
  const double setup = 4 * v * d + v * d * d + 10 * d * d * d;  // features, W^T D W, eigen-decomposition
  return setup + samples * (direct ? 2 * v * d + 20 * v : 8 * d) + 40 * v * d;
}

const std::vector<slp::MetricDecl> kMetrics = {
    {"loss", "P(theta) after the steps: 1/2 (W theta - b)^T D (W theta - b), exact"},
    {"loss_best", "min over theta of P for this draw of W (the limit of training with a vanishing step)"},
    {"loss_zero", "P(0) = 1/2 sum_j j^(-2 alpha - 2 beta)"},
    {"flops", "compute spent: d x batch x steps"},
    {"diverged", "1 when the loss exceeded 1e6 P(0) (step too large), else 0"},
    {"curve_flops", "compute at the recorded steps (log-spaced)", true},
    {"curve_loss", "loss at the recorded steps", true},
};

}  // namespace

SCALINGLAB_WORLD(world) {
  {
    slp::MeasureDef m;
    m.name = "plrf.loss";
    m.summary = "power-law random features trained by one-pass SGD: the loss after f/d steps";
    m.details =
        "Paquette, Paquette, Xiao, Pennington (2024), 4+3 Phases of Compute-Optimal Neural Scaling Laws: x in R^v "
        "with x_j ~ N(0, j^(-2 alpha)), target <x, b> with b_j = j^(-beta), model <W^T x, theta> with W (v x d) of "
        "i.i.d. N(0, 1/d) entries, loss P(theta) = 1/2 E[(<W^T x, theta> - <x, b>)^2] computed exactly. One-pass SGD "
        "from theta = 0, batch B (averaged gradient), step gamma = lr / tr(W^T D W) (so gamma times any eigenvalue of "
        "W^T D W is at most lr, and E[loss] is stable for lr < 2B/(B+2)); compute f = d x B x steps. Column k of the feature bank is drawn from its own substream, so the model of size d uses the first "
        "d features of one bank (scaled 1/sqrt(d)): d, steps, f, batch, lr and the sampler are same-world "
        "parameters (alpha, beta and v define the world). sampler=eigen runs the same SGD in the eigenbasis of "
        "W^T D W (exact in law, O(d) a sample); sampler=direct draws x and forms W^T x.";
    m.params = params(true);
    m.metrics = kMetrics;
    m.check = check;
    m.work = [](const slp::Args& a) { return work(a, a.text("sampler") == "direct"); };
    m.memory = [](const slp::Args& a) {
      const double v = static_cast<double>(a.integer("v")), d = static_cast<double>(a.integer("d"));
      return 8 * (2 * v * d + 3 * d * d + 4 * v) + 4e6;
    };
    m.run = [](const slp::Args& a, slp::Result& r) {
      const plrf::Config c = config(a);
      check(a);
      const int64_t steps = a.integer("steps");
      const int points = static_cast<int>(a.integer("points"));
      if (a.text("sampler") == "direct") {
        const plrf::Population pop(c.alpha, c.beta, c.v);
        const std::vector<double> W = plrf::features(c);
        const std::shared_ptr<const plrf::Spectrum> s = plrf::SpectrumCache::instance().get(c);
        report(c, *s, steps, plrf::sgd_direct(c, pop, W, *s, steps, points), r);
      } else {
        const std::shared_ptr<const plrf::Spectrum> s = plrf::SpectrumCache::instance().get(c);
        report(c, *s, steps, plrf::sgd_eigen(c, *s, steps, points), r);
      }
    };
    world.add(std::move(m));
  }
  {
    slp::MeasureDef m;
    m.name = "plrf.expected";
    m.summary = "power-law random features: E[loss | W] along one-pass SGD, exactly (no sampling of the data)";
    m.details =
        "The same model, step and compute as plrf.loss; the expectation over the SGD samples of the loss, given the "
        "draw of W (the seed), by the closed recursion of the second moments of theta - theta* in the eigenbasis "
        "of W^T D W (Gaussian fourth moments): the discrete form of the paper's Volterra equation for one W. The "
        "mean of plrf.loss over many runs with one W converges to it (tests/test_plrf.cpp checks it).";
    m.params = params(false);
    m.metrics = kMetrics;
    m.check = check;
    m.work = [](const slp::Args& a) { return work(a, false); };
    m.memory = [](const slp::Args& a) {
      const double v = static_cast<double>(a.integer("v")), d = static_cast<double>(a.integer("d"));
      return 8 * (2 * v * d + 3 * d * d + 4 * v) + 4e6;
    };
    m.run = [](const slp::Args& a, slp::Result& r) {
      const plrf::Config c = config(a);
      check(a);
      const int64_t steps = a.integer("steps");
      const std::shared_ptr<const plrf::Spectrum> s = plrf::SpectrumCache::instance().get(c);
      report(c, *s, steps, plrf::expected_curve(c, *s, steps, static_cast<int>(a.integer("points"))), r);
    };
    world.add(std::move(m));
  }
}
