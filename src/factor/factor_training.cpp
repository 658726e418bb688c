#include "scalinglab/factor/factor_training.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/state_blob.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/factor/adam.hpp"

namespace scalinglab::factor {

Setting parse_setting(const std::string& name) {
  if (name == "single_pass") return Setting::single_pass;
  if (name == "compression") return Setting::compression;
  if (name == "generalization") return Setting::generalization;
  throw std::invalid_argument("unknown setting '" + name + "' (single_pass, compression or generalization)");
}

double flops_per_sample(std::size_t d, std::size_t h, std::size_t L, std::size_t M) {
  const double forward = 6.0 * static_cast<double>(L * d * h) + 2.0 * static_cast<double>(d * M);
  return 3 * forward;
}

std::size_t samples_per_epoch(const TrainSpec& spec, std::size_t N) {
  switch (spec.setting) {
    case Setting::single_pass: return spec.batch;
    case Setting::compression: return N;
    case Setting::generalization: return static_cast<std::size_t>(std::llround(spec.gamma * static_cast<double>(N)));
  }
  return N;
}

std::vector<std::size_t> evaluation_epochs(std::size_t T, std::size_t count) {
  std::vector<std::size_t> e{0};
  const double top = std::log(static_cast<double>(std::max<std::size_t>(T, 1)));
  for (std::size_t i = 0; i < count; ++i) {
    const double f = count > 1 ? static_cast<double>(i) / static_cast<double>(count - 1) : 1.0;
    e.push_back(static_cast<std::size_t>(std::llround(std::exp(f * top))));
  }
  e.push_back(T);
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  while (!e.empty() && e.back() > T) e.pop_back();
  return e;
}

void split_inputs(std::size_t N, std::size_t seen, Stream s, std::vector<uint32_t>& observed,
                  std::vector<uint32_t>& unobserved) {
  std::vector<uint32_t> perm(N);
  std::iota(perm.begin(), perm.end(), 0u);
  for (std::size_t i = N; i > 1; --i) std::swap(perm[i - 1], perm[s.below(i)]);
  observed.assign(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(seen));
  unobserved.assign(perm.begin() + static_cast<std::ptrdiff_t>(seen), perm.end());
  std::sort(observed.begin(), observed.end());
  std::sort(unobserved.begin(), unobserved.end());
}

TrainResult train(const FactorTask& task, const TrainSpec& spec, Stream& stream, const Stream* split_stream) {
  const std::size_t N = task.N(), M = task.M();
  MlpShape shape;
  shape.N = N, shape.M = M, shape.d = spec.d, shape.h = spec.h, shape.L = spec.L, shape.gate = spec.gate;
  const int threads = spec.threads > 0 ? spec.threads : task_threads();
  set_blas_threads(1);  // the engine parallelises over shards of rows itself

  Stream init = stream.substream(10), embed = stream.substream(11), split = stream.substream(12),
         data = stream.substream(13);
  GatedMlp net(shape);
  init_default(net, init);
  if (spec.factorized_embedding) set_factorized_embedding(net, task.input(), embed);
  const bool train_embedding = !spec.factorized_embedding;
  const std::size_t first_trained = train_embedding ? 0 : net.w1_offset(0);

  // Exact targets: rows of p(y|x) generated from the factors as needed (cheaper than streaming an
  // N x M table every epoch), and sum_y p log p per input.
  std::vector<double> neg_entropy(N);
  for (std::size_t x = 0; x < N; ++x) neg_entropy[x] = -task.conditional_entropy(x);
  Targets soft;
  soft.row = [&task](std::size_t x, float* out) { task.row(x, out); };
  soft.neg_entropy = neg_entropy.data();

  // Inputs: training rows and test rows.
  std::vector<uint32_t> all(N), train_rows, test_rows;
  std::iota(all.begin(), all.end(), 0u);
  if (spec.setting == Setting::generalization) {
    const std::size_t seen = samples_per_epoch(spec, N);
    if (seen < 1 || seen >= N)
      throw std::invalid_argument("gamma * N must leave at least one observed and one unobserved input");
    split_inputs(N, seen, split_stream ? *split_stream : split, train_rows, test_rows);
  } else {
    train_rows = all, test_rows = all;
  }
  const bool fresh_batches = spec.setting == Setting::single_pass;
  std::vector<uint32_t> batch_x, batch_y;
  if (fresh_batches) batch_x.resize(spec.batch), batch_y.resize(spec.batch);
  Targets hard;

  TrainResult res;
  res.samples_per_epoch = static_cast<double>(samples_per_epoch(spec, N));
  res.observed = train_rows.size();
  const double per_epoch = res.samples_per_epoch * flops_per_sample(spec.d, spec.h, spec.L, M);

  MlpEngine engine(shape);
  std::vector<float> grad(net.size(), 0.0f);
  Adam adam(net.size());
  std::vector<std::size_t> evals = evaluation_epochs(spec.epochs, spec.evals);
  for (std::size_t e : spec.extra_evals)
    if (e <= spec.epochs) evals.push_back(e);
  std::sort(evals.begin(), evals.end());
  evals.erase(std::unique(evals.begin(), evals.end()), evals.end());
  std::size_t next_eval = 0;
  auto test_loss = [&]() {
    return engine.loss_and_gradient(net, test_rows.data(), test_rows.size(), soft, nullptr, false, true, threads);
  };
  auto record = [&](std::size_t epoch, double loss) {
    res.curve_epoch.push_back(static_cast<double>(epoch));
    res.curve_loss.push_back(loss);
    res.curve_flops.push_back(static_cast<double>(epoch) * per_epoch);
  };

  // A checkpoint holds everything the remaining epochs read: the next epoch and evaluation, the
  // curve so far, the weights, Adam's moments and step, and the batches' random stream.
  std::size_t first_epoch = 0;
  auto save_state = [&](std::size_t next_epoch) {
    BlobWriter w;
    w.u64(next_epoch);
    w.u64(next_eval);
    w.doubles(res.curve_epoch);
    w.doubles(res.curve_loss);
    w.doubles(res.curve_flops);
    w.floats(net.theta);
    w.floats(adam.m);
    w.floats(adam.v);
    w.u64(static_cast<uint64_t>(adam.t));
    data.save(w);
    spec.checkpoint->save(w.str());
  };
  if (spec.checkpoint) {
    // The largest state this task saves: two counters, the curves at every evaluation, the weights
    // and Adam's moments, the step and the batches' stream (a few hundred bytes).
    const uint64_t max_state = 2 * 8 + 3 * (8 + 8 * evals.size()) + 3 * (8 + 4 * uint64_t{net.size()}) + 8 + 4096;
    if (const auto state = spec.checkpoint->load(max_state)) {
      BlobReader r(*state, "the checkpoint of factor.train");
      first_epoch = static_cast<std::size_t>(r.u64());
      next_eval = static_cast<std::size_t>(r.u64());
      res.curve_epoch = r.doubles();
      res.curve_loss = r.doubles();
      res.curve_flops = r.doubles();
      std::vector<float> theta = r.floats(), m = r.floats(), v = r.floats();
      const auto steps = r.u64();
      data.restore(r);
      // Every field against the task, whatever the signature says: the shapes, the epoch and
      // evaluation counters, the curve at exactly the evaluations before the epoch, one Adam step
      // per epoch, finite weights and moments with v >= 0.
      auto fits = [&] {
        if (!r.done() || first_epoch < 1 || first_epoch >= spec.epochs || next_eval > evals.size() ||
            steps != first_epoch || theta.size() != net.size() || m.size() != net.size() || v.size() != net.size() ||
            res.curve_epoch.size() != next_eval || res.curve_loss.size() != next_eval || res.curve_flops.size() != next_eval)
          return false;
        if (next_eval < evals.size() && evals[next_eval] < first_epoch) return false;
        for (std::size_t i = 0; i < next_eval; ++i)
          if (res.curve_epoch[i] != static_cast<double>(evals[i]) || evals[i] >= first_epoch ||
              res.curve_flops[i] != static_cast<double>(evals[i]) * per_epoch || !std::isfinite(res.curve_loss[i]) ||
              res.curve_loss[i] < 0)
            return false;
        for (std::size_t i = 0; i < theta.size(); ++i)
          if (!std::isfinite(theta[i]) || !std::isfinite(m[i]) || !std::isfinite(v[i]) || v[i] < 0) return false;
        return true;
      };
      if (!fits()) throw InputError("the checkpoint of factor.train does not fit this task: remove it to start afresh");
      net.theta = std::move(theta);
      adam.m = std::move(m);
      adam.v = std::move(v);
      adam.t = static_cast<long>(steps);
    }
  }

  for (std::size_t t = first_epoch; t <= spec.epochs; ++t) {
    const bool evaluate = next_eval < evals.size() && evals[next_eval] == t;
    if (t == spec.epochs) {  // after the last step: the final losses
      res.loss = test_loss();
      res.train_loss = spec.setting == Setting::generalization
                           ? engine.loss_and_gradient(net, train_rows.data(), train_rows.size(), soft, nullptr, false,
                                                      true, threads)
                           : res.loss;
      if (evaluate) record(t, res.loss);
      break;
    }
    double loss_before = std::numeric_limits<double>::quiet_NaN();
    if (fresh_batches) {
      for (std::size_t b = 0; b < spec.batch; ++b) {
        batch_x[b] = static_cast<uint32_t>(data.below(N));
        batch_y[b] = task.sample_output(batch_x[b], data);
      }
      hard.labels = batch_y.data();
      engine.loss_and_gradient(net, batch_x.data(), spec.batch, hard, grad.data(), train_embedding, false, threads);
      if (evaluate) loss_before = test_loss();
    } else {
      // Full batch: the training loss comes with the gradient; in compression it is the test loss.
      const bool want = evaluate && spec.setting == Setting::compression;
      loss_before = engine.loss_and_gradient(net, train_rows.data(), train_rows.size(), soft, grad.data(),
                                             train_embedding, want, threads);
      if (evaluate && spec.setting == Setting::generalization) loss_before = test_loss();
    }
    if (evaluate) {
      record(t, loss_before);
      ++next_eval;
      if (!std::isfinite(loss_before)) {
        res.diverged = true;
        break;
      }
    }
    const double lr = learning_rate(spec.schedule, spec.lr, static_cast<double>(t), static_cast<double>(spec.epochs));
    adam.step(net.theta.data(), grad.data(), first_trained, net.size(), lr, threads);
    if (spec.on_epoch) spec.on_epoch();
    if (spec.checkpoint && t + 1 < spec.epochs && spec.checkpoint->due()) save_state(t + 1);
  }
  if (res.diverged) res.loss = res.train_loss = std::numeric_limits<double>::quiet_NaN();
  res.flops = static_cast<double>(spec.epochs) * per_epoch;
  if (!std::isfinite(res.loss)) res.diverged = true;
  return res;
}

}  // namespace scalinglab::factor
