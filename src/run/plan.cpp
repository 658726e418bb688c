// Planning a sweep: timed probes of its cheapest tasks (plan_probe.cpp), then a cost model calibrated
// on them predicts every task. Each part is predicted from its own probes only: the seconds per
// operation of one part do not carry to another (factor.train's rate differs tenfold between a
// small model trained for 10^6 epochs and a large one trained for 10^3, at the same work).
#include "scalinglab/run/plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <numeric>

#include "plan_probe.hpp"
#include "scalinglab/core/cost_model.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/lab/limits.hpp"

namespace scalinglab {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The numeric parameters of each point, by name (runs and seed excluded: they are not a task's size).
std::vector<std::vector<double>> numeric_features(const std::vector<GridPoint>& points, const std::vector<std::size_t>& idx) {
  std::vector<std::string> names;
  for (std::size_t i : idx)
    for (const auto& e : points[i].params.entries())
      if (e.spec->name != "runs" && e.spec->name != "seed" &&
          std::find(names.begin(), names.end(), e.spec->name) == names.end())
        names.push_back(e.spec->name);
  std::vector<std::vector<double>> out;
  for (std::size_t i : idx) {
    std::vector<double> f(names.size(), NAN);
    for (const auto& e : points[i].params.entries()) {
      const auto at = std::find(names.begin(), names.end(), e.spec->name);
      if (at != names.end()) f[static_cast<std::size_t>(at - names.begin())] = e.number;
    }
    out.push_back(std::move(f));
  }
  return out;
}

// The probes of one part of a sweep (all its points run one measure) and the estimate made from them.
class PartProbes {
 public:
  PartProbes(const Sweep& sweep, const std::vector<GridPoint>& points, std::vector<std::size_t> idx)
      : sweep_(sweep), points_(points), idx_(std::move(idx)), m_(*points[idx_.front()].measure), n_(idx_.size()),
        features_(numeric_features(points, idx_)), model_(features_), measured_(n_, NAN), work_(n_, NAN),
        pred_(n_, NAN), tried_(n_, false) {
    by_work_ = static_cast<bool>(m_.work);
    for (std::size_t k = 0; k < n_ && by_work_; ++k) {
      work_[k] = m_.work(points_[idx_[k]].params);
      by_work_ = work_[k] > 0 && std::isfinite(work_[k]);
    }
    // Cheapest first: by the declared work, else by the product of the numeric parameters (a proxy).
    std::vector<double> key(n_, 1);
    for (std::size_t k = 0; k < n_; ++k) {
      if (by_work_) key[k] = work_[k];
      else
        for (double v : features_[k])
          if (v > 0 && std::isfinite(v)) key[k] *= v;
    }
    order_.resize(n_);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  }
  PartProbes(const PartProbes&) = delete;
  PartProbes& operator=(const PartProbes&) = delete;

  // The cheapest points in order until 3 probes finished, within `budget` seconds.
  void cheapest(double budget) {
    const auto start = Clock::now();
    for (std::size_t i = 0; i < n_ && seen_.size() < 3 && !failed(); ++i) {
      const double left = budget - since(start);
      if (left <= 0) return;
      if (!tried_[order_[i]] && !probe(order_[i], left)) return;
    }
  }

  // Then the largest point the model expects to finish in half the budget left, again and again:
  // the probes then span the sizes instead of crowding at the small end, where fixed costs weigh most.
  void climb(double budget) {
    const auto start = Clock::now();
    if (seen_.empty() && stopped_ < n_ && !failed() && budget > stopped_at_ && !probe(stopped_, budget))
      return;  // the cheapest point again, with more time
    while (!failed()) {
      refit();
      const double room = (budget - since(start)) / 2;
      std::size_t best = n_;
      for (std::size_t k = 0; k < n_; ++k)
        if (!tried_[k] && pred_[k] <= room && (best == n_ || pred_[k] > pred_[best])) best = k;
      if (best == n_ || !probe(best, 2 * room)) return;
    }
  }

  bool wants_more() const {
    return !failed() && static_cast<std::size_t>(std::count(tried_.begin(), tried_.end(), true)) < n_;
  }

  // The predicted time of the points not probed yet (infinite while nothing finished).
  double cost_left() {
    refit();
    if (seen_.empty()) return INFINITY;
    double s = 0;
    for (std::size_t k = 0; k < n_; ++k)
      if (!tried_[k]) s += pred_[k];
    return s;
  }

  MeasureEstimate estimate() {
    refit();
    MeasureEstimate est;
    est.measure = m_.name;
    est.part = points_[idx_.front()].part;
    est.points = n_;
    const auto runs = static_cast<std::size_t>(sweep_.runs);
    est.tasks = n_ * runs;
    est.probes = seen_.size();
    est.failure = failure_;
    est.method = method_;
    if (seen_.size() == n_) est.method = fmt::format("every point probed ({})", n_);
    if (seen_.empty()) {
      // Nothing finished: the stopped probe bounds every task from below (the cheapest took that long).
      est.lower_bound = true;
      est.method = stopped_ < n_ ? fmt::format("no probe finished (one ran {:.3g} s of CPU): at least", stopped_at_) : "no probe ran";
      for (std::size_t k = 0; k < n_; ++k)
        pred_[k] = stopped_ < n_ ? (by_work_ ? stopped_at_ * work_[k] / work_[stopped_] : stopped_at_) : 0;
    } else if (stopped_ < n_) {
      pred_[stopped_] = std::max(pred_[stopped_], stopped_at_);  // it took at least that long
    }
    for (std::size_t k = 0; k < n_; ++k) {
      const double t = std::isnan(measured_[k]) ? pred_[k] : measured_[k];
      est.cpu_seconds += t * static_cast<double>(runs);
      est.longest_seconds = std::max(est.longest_seconds, t);
      if (m_.memory) est.peak_bytes = std::max(est.peak_bytes, m_.memory(points_[idx_[k]].params));
    }
    return est;
  }

 private:
  bool failed() const { return !failure_.empty(); }

  double largest_work() const {
    double most = 0;
    for (std::size_t k : seen_) most = std::max(most, work_[k]);
    return most;
  }

  // One probe of point k within `limit` seconds; false when it was stopped or failed.
  bool probe(std::size_t k, double limit) {
    tried_[k] = true;
    const GridPoint& p = points_[idx_[k]];
    try {
      check_memory(m_, p.params, 1);
    } catch (const InputError&) {
      return true;  // too large for this machine: not a probe
    }
    const ProbeOutcome r = probe_task(m_, p.params, sweep_.seed, static_cast<uint64_t>(sweep_.runs), limit);
    if (r.status == ProbeOutcome::finished) {
      measured_[k] = r.seconds;
      seen_.push_back(k);
      return true;
    }
    if (r.status == ProbeOutcome::stopped) {
      stopped_at_ = r.seconds;
      stopped_ = k;
    } else {
      failure_ = r.error;
    }
    return false;
  }

  // Predictions of every point from the finished probes (NaN while none finished).
  void refit() {
    if (seen_.empty()) return;
    std::vector<double> secs;
    for (std::size_t k : seen_) secs.push_back(measured_[k]);
    if (by_work_) {
      // The rate of the largest probes (work within 4x of the largest): a small task's fixed costs
      // inflate its rate, and the rate falls with size as the products use the caches better.
      const double most = largest_work();
      std::vector<double> rates;
      for (std::size_t k : seen_)
        if (work_[k] * 4 >= most) rates.push_back(measured_[k] / work_[k]);
      const double rate = median_of(rates);
      for (std::size_t k = 0; k < n_; ++k) pred_[k] = work_[k] * rate;
      method_ = fmt::format("work x rate, {} probe{}", seen_.size(), seen_.size() == 1 ? "" : "s");
    } else if (model_.fit(seen_, secs)) {
      for (std::size_t k = 0; k < n_; ++k) pred_[k] = model_.predict(k);
      method_ = fmt::format("power law from {} probes", seen_.size());
    } else {
      const double mean = std::accumulate(secs.begin(), secs.end(), 0.0) / static_cast<double>(secs.size());
      std::fill(pred_.begin(), pred_.end(), mean);
      method_ = fmt::format("mean of {} probe{}", seen_.size(), seen_.size() == 1 ? "" : "s");
    }
  }

  const Sweep& sweep_;
  const std::vector<GridPoint>& points_;
  std::vector<std::size_t> idx_;
  const Measure& m_;
  std::size_t n_;
  std::vector<std::vector<double>> features_;
  CostModel model_;  // holds a reference to features_
  std::vector<double> measured_, work_, pred_;
  std::vector<bool> tried_;
  std::vector<std::size_t> order_, seen_;
  bool by_work_ = false;
  std::size_t stopped_ = SIZE_MAX;  // a point whose probe was stopped at the budget (n_ or more: none)
  double stopped_at_ = 0;
  std::string failure_, method_;
};

// A sweep's grid and the probes of its parts (not moved: the probes refer to the points).
struct ProbedSweep {
  const Sweep* sweep = nullptr;
  std::vector<GridPoint> points;
  std::vector<std::unique_ptr<PartProbes>> parts;
  double seconds = 0;
  double load = NAN;
};

std::unique_ptr<ProbedSweep> probe_sweep(const Sweep& sweep, const PlanOptions& options) {
  const Registry& registry = options.registry ? *options.registry : world_registry();
  auto out = std::make_unique<ProbedSweep>();
  out->sweep = &sweep;
  out->points = expand_grid(sweep, registry);
  // The points of each part (parts of one measure may take different code paths: SGD and Adam),
  // in the order of the sweep.
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::string, std::size_t> group_of;
  for (std::size_t i = 0; i < out->points.size(); ++i) {
    auto [at, fresh] = group_of.emplace(out->points[i].part, groups.size());
    if (fresh) groups.emplace_back();
    groups[at->second].push_back(i);
  }
  auto& parts = out->parts;
  for (auto& g : groups) parts.push_back(std::make_unique<PartProbes>(sweep, out->points, std::move(g)));
  // Two rounds over the parts, each sharing the budget left among the parts left: the cheapest
  // probes of every part first, then the climbs, the parts whose points left look cheapest first,
  // so that what they leave goes to the costly ones.
  const auto start = Clock::now();
  const double budget = options.probe_seconds;
  for (std::size_t g = 0; g < parts.size(); ++g)
    parts[g]->cheapest((budget - since(start)) / static_cast<double>(parts.size() - g));
  std::vector<std::pair<double, PartProbes*>> climbing;
  for (auto& p : parts)
    if (p->wants_more()) climbing.emplace_back(p->cost_left(), p.get());
  std::stable_sort(climbing.begin(), climbing.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t g = 0; g < climbing.size(); ++g)
    climbing[g].second->climb((budget - since(start)) / static_cast<double>(climbing.size() - g));
  out->seconds = since(start);
  double load[1];
  if (getloadavg(load, 1) == 1) out->load = load[0];
  return out;
}

SweepPlan estimate_sweep(ProbedSweep& probed, const PlanOptions& options) {
  SweepPlan plan;
  plan.name = probed.sweep->name;
  plan.points = probed.points.size();
  plan.tasks = probed.points.size() * static_cast<std::size_t>(probed.sweep->runs);
  plan.probe_seconds = probed.seconds;
  plan.load_average = probed.load;
  for (auto& p : probed.parts) plan.measures.push_back(p->estimate());
  // The limits `run` checks before any task (docs/reliability.md): reported, since a plan is also
  // for sizing a sweep too large for this machine.
  try {
    check_limit(static_cast<double>(plan.tasks), limits().max_tasks, probed.sweep->path, "tasks (grid points x runs)",
                "--max-tasks");
    for (const auto& p : probed.points) {
      check_task(*p.measure, p.params, resolve_threads(options.threads));
    }
  } catch (const InputError& e) {
    plan.refused = e.what();
  }
  return plan;
}

}  // namespace

double SweepPlan::cpu_seconds() const {
  double s = 0;
  for (const auto& m : measures) s += m.cpu_seconds;
  return s;
}

double SweepPlan::longest_seconds() const {
  double s = 0;
  for (const auto& m : measures) s = std::max(s, m.longest_seconds);
  return s;
}

double SweepPlan::peak_bytes() const {
  double s = 0;
  for (const auto& m : measures) s = std::max(s, m.peak_bytes);
  return s;
}

bool SweepPlan::lower_bound() const {
  for (const auto& m : measures)
    if (m.lower_bound) return true;
  return false;
}

double SweepPlan::wall_seconds(int threads) const {
  return std::max(cpu_seconds() / std::max(resolve_threads(threads), 1), longest_seconds());
}

SweepPlan plan_sweep(const Sweep& sweep, const PlanOptions& options) {
  return estimate_sweep(*probe_sweep(sweep, options), options);
}

std::vector<SweepPlan> plan_paper(const ReproduceOptions& paper, const PlanOptions& options) {
  std::vector<SweepPlan> plans;
  for (const Sweep& sweep : load_paper_sweeps(paper)) plans.push_back(plan_sweep(sweep, options));
  return plans;
}

}  // namespace scalinglab
