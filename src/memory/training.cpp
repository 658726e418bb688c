#include "scalinglab/memory/training.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "scalinglab/core/zipf.hpp"
#include "scalinglab/memory/zipf_task.hpp"

namespace scalinglab::memory {

namespace {
enum : uint64_t { kLabels = 0, kInit = 1, kData = 2 };

void gaussian(MatrixRD& m, std::size_t rows, std::size_t cols, double sd, Stream& s) {
  m.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  s.fill_normal(m.data(), rows * cols, sd);
}
}  // namespace

std::vector<long> curve_schedule(long steps, int points) {
  std::vector<long> out;
  if (points <= 0 || steps <= 0) return out;
  for (int i = 0; i < points; ++i) {
    const double f = points > 1 ? static_cast<double>(i) / (points - 1) : 1.0;
    const long s = std::lround(std::pow(static_cast<double>(steps), f));
    if (out.empty() || s > out.back()) out.push_back(std::min(s, steps));
  }
  if (out.back() != steps) out.push_back(steps);
  return out;
}

TrainResult train_memory(const TrainSpec& spec, Stream& stream) {
  const bool population = std::isinf(spec.batch);
  if (!population && std::isinf(spec.T))
    throw std::invalid_argument("T = inf needs batch = inf (population gradient); give a finite T");
  Stream label_stream = stream.substream(kLabels);
  const ZipfTask task = make_zipf_task(spec.N, spec.M, spec.alpha, spec.labels, label_stream);

  ModelParams p;
  Stream init = stream.substream(kInit);
  const double sd = 1.0 / std::sqrt(static_cast<double>(spec.d));
  gaussian(p.W, spec.d, spec.d, sd, init);
  gaussian(p.E, spec.N, spec.d, sd, init);
  gaussian(p.U, spec.M, spec.d, sd, init);

  const auto batch = population ? spec.N : static_cast<std::size_t>(spec.batch);
  const long steps = population ? spec.population_steps
                                : static_cast<long>((static_cast<uint64_t>(spec.T) + batch - 1) / batch);
  ScheduleSpec schedule = spec.schedule;
  schedule.total_steps = steps;
  Optimizer opt(spec.optimizer, spec.model, p);
  ModelParams grad;

  std::vector<uint32_t> xs, ys;
  std::vector<double> weights;
  if (population) {
    for (uint32_t x = 0; x < spec.N; ++x) xs.push_back(x), ys.push_back(task.label[x]);
    weights = task.p;
  }
  const AliasTable table(task.p);
  Stream data = stream.substream(kData);
  const std::vector<long> curve = curve_schedule(steps, spec.curve_points);
  std::size_t next_curve = 0;
  TrainResult result;
  uint64_t seen = 0;
  for (long t = 0; t < steps; ++t) {
    if (!population) {
      const std::size_t b = std::min<uint64_t>(batch, static_cast<uint64_t>(spec.T) - seen);
      seen += b;
      xs.resize(b);
      ys.resize(b);
      weights.assign(b, 1.0 / static_cast<double>(b));  // cross-entropy averaged over the batch
      for (std::size_t i = 0; i < b; ++i) {
        xs[i] = static_cast<uint32_t>(table.sample(data));
        ys[i] = task.label[xs[i]];
      }
    }
    loss_and_gradient(spec.model, p, xs, ys, weights, &grad);
    opt.step(p, grad, schedule.factor(t));
    if (next_curve < curve.size() && curve[next_curve] == t + 1) {
      result.curve_step.push_back(static_cast<double>(t + 1));
      result.curve_error.push_back(model_error(spec.model, p, task.p, task.label));
      ++next_curve;
    }
  }
  result.steps = steps;
  result.error = model_error(spec.model, p, task.p, task.label);
  std::vector<uint32_t> all_x(spec.N), all_y(spec.N);
  for (uint32_t x = 0; x < spec.N; ++x) all_x[x] = x, all_y[x] = task.label[x];
  result.loss = loss_and_gradient(spec.model, p, all_x, all_y, task.p, nullptr);
  return result;
}

}  // namespace scalinglab::memory
