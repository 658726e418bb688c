// Benchmark of memory.train (train_memory) on the cases of Section 4 of Cabannes, Dohmatob, Bietti:
// N = 100, M = 5, alpha = 2, f*(x) = x mod M, d = 100, W, E, U with N(0, 1/d) entries at init,
// cross-entropy averaged over each batch, a single pass over T i.i.d. Zipf samples:
//   a         matrix model (W learned), SGD lr = 1, batch 1, T = 10^4        (10^4 steps)
//   b         matrix model, SGD lr = 1, batch 1024, T = 204800               (200 steps)
//   c         matrix model, Adam betas (0, 0) (signSGD, step lr/d on W), lr = 1, batch 1, T = 10^4
//   d         learnable model (E, W, U learned) with layer norm, SGD lr = 1, batch 16, T = 32000
//   e         matrix model with layer norm, SGD lr = 1, batch 16, T = 8000, d = 1000 (feature update)
//   f         learnable model, Adam betas (0, 0), lr = 1, batch 16, T = 8000, d = 1000
//   a_dense   case a with span_update = false (the generic dense step), for information
//   b_dense   case b with span_update = false
//   f_definition  case f with the Adam step by its definition (fused_adaptive = false): the errors
//             of f must equal these (the two-pass step is the same step, up to the sums' rounding)
// bench/reference/memory_train_torch.py runs the same loops in PyTorch; bench/run_memory_train.sh
// compares the two.
//
// Timing: each repetition is one whole call of train_memory (task, initialisation, the loop, the
// final error (5) and population loss), with seed 1000 + rep; seconds per step = that time / steps.
// This charges our fixed costs to the steps, while the PyTorch reference times its loop only; the
// fixed cost is reported separately (`setup_seconds`: median time of a one-step run of the same
// spec) together with `loop_seconds_per_step` = (total - setup) / (steps - 1).
//
// Concurrency: each case also runs as `copies` copies at once, one per thread (how a sweep runs its
// tasks), reported as each copy's time per step and the efficiency t_1 / t_copies.
//
// Output: one JSON object on stdout (with the vector instruction set the kernels were built for).
// Usage: bench_memory_train [reps=5] [threads=1] [cases=a,b,c,d,e,f,a_dense,b_dense,f_definition] [copies=2]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/simd.hpp"
#include "scalinglab/memory/training.hpp"

using namespace scalinglab;
using namespace scalinglab::memory;
using namespace scalinglab::bench;

namespace {

struct Case {
  std::string name;
  TrainSpec spec;
};

TrainSpec base_spec() {
  TrainSpec s;
  s.N = 100;
  s.M = 5;
  s.d = 100;
  s.alpha = 2.0;
  s.labels = "mod";
  s.model.kind = ModelKind::matrix;
  s.model.layernorm = false;
  s.optimizer.kind = OptimizerKind::sgd;
  s.optimizer.lr = 1.0;
  s.optimizer.beta1 = 0.0;
  s.optimizer.beta2 = 0.0;
  s.optimizer.eps = 1e-8;
  s.schedule.kind = ScheduleKind::constant;
  s.curve_points = 0;
  return s;
}

std::vector<Case> all_cases() {
  std::vector<Case> cs;
  TrainSpec a = base_spec();
  a.batch = 1;
  a.T = 1e4;
  cs.push_back({"a", a});
  TrainSpec b = base_spec();
  b.batch = 1024;
  b.T = 1024.0 * 200;
  cs.push_back({"b", b});
  TrainSpec c = base_spec();
  c.optimizer.kind = OptimizerKind::adam;
  c.batch = 1;
  c.T = 1e4;
  cs.push_back({"c", c});
  TrainSpec d = base_spec();
  d.model.kind = ModelKind::learnable;
  d.model.layernorm = true;
  d.batch = 16;
  d.T = 16.0 * 2000;
  cs.push_back({"d", d});
  TrainSpec e = base_spec();
  e.model.layernorm = true;
  e.d = 1000;
  e.batch = 16;
  e.T = 16.0 * 500;
  cs.push_back({"e", e});
  TrainSpec f = base_spec();
  f.model.kind = ModelKind::learnable;
  f.optimizer.kind = OptimizerKind::adam;
  f.d = 1000;
  f.batch = 16;
  f.T = 16.0 * 500;
  cs.push_back({"f", f});
  TrainSpec fd = f;
  fd.fused_adaptive = false;
  cs.push_back({"f_definition", fd});
  TrainSpec ad = a;
  ad.span_update = false;
  cs.push_back({"a_dense", ad});
  TrainSpec bd = b;
  bd.span_update = false;
  cs.push_back({"b_dense", bd});
  return cs;
}

bool selected(const std::string& list, const std::string& name) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    if (list.compare(start, end - start, name) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  const std::string which = argc > 3 ? argv[3] : "a,b,c,d,e,f,a_dense,b_dense,f_definition";
  const int copies = argc > 4 ? std::max(1, std::atoi(argv[4])) : 2;
  set_blas_threads(threads);

  std::printf("{\"impl\": \"scalinglab\", \"instruction_set\": \"%s\", \"threads\": %d, \"reps\": %d, \"cases\": {",
              simd::instruction_set(), threads, reps);
  bool first = true;
  for (const Case& c : all_cases()) {
    if (!selected(which, c.name)) continue;
    // Warm-up (per-thread buffers, the Zipf cache), untimed.
    {
      TrainSpec w = c.spec;
      w.T = std::min(w.T, 100 * w.batch);
      Stream s(1);
      (void)train_memory(w, s);
    }
    // Fixed cost: the same spec with a single step.
    std::vector<double> t_setup;
    for (int r = 0; r < reps; ++r) {
      TrainSpec one = c.spec;
      one.T = one.batch;
      Stream s(1000 + static_cast<uint64_t>(r));
      const auto t0 = Clock::now();
      (void)train_memory(one, s);
      t_setup.push_back(seconds_since(t0));
    }
    std::vector<double> t_total, errors;
    long steps = 0;
    for (int r = 0; r < reps; ++r) {
      Stream s(1000 + static_cast<uint64_t>(r));
      const auto t0 = Clock::now();
      const TrainResult res = train_memory(c.spec, s);
      t_total.push_back(seconds_since(t0));
      errors.push_back(res.error);
      steps = res.steps;
    }
    // The same run on `copies` threads at once (a sweep's tasks, one per core): each copy's time per
    // step against the single run's (parallel efficiency t_1 / t_copies; memory bandwidth and the
    // shared cache are what it measures).
    std::vector<double> t_concurrent;
    for (int r = 0; r < reps; ++r) {
      const auto sec = concurrent_seconds(copies, [&](int copy) {
        Stream s(2000 + static_cast<uint64_t>(r * copies + copy));
        (void)train_memory(c.spec, s);
      });
      t_concurrent.insert(t_concurrent.end(), sec.begin(), sec.end());
    }
    const double total = median(t_total), setup = median(t_setup);
    std::printf("%s\n  \"%s\": {\"steps\": %ld, \"batch\": %g, \"T\": %g, \"d\": %zu, \"path\": \"%s\", \"seconds_total\": %.9g,",
                first ? "" : ",", c.name.c_str(), steps, c.spec.batch, c.spec.T, c.spec.d, path_name(state_path(c.spec)),
                total);
    std::printf(" \"seconds_per_step\": %.9g, \"setup_seconds\": %.9g, \"loop_seconds_per_step\": %.9g,",
                total / static_cast<double>(steps), setup,
                steps > 1 ? std::max(0.0, total - setup) / static_cast<double>(steps - 1) : total);
    std::printf(" \"concurrent\": {\"copies\": %d, \"seconds_per_step\": %.9g, \"efficiency\": %.4f},", copies,
                median(t_concurrent) / static_cast<double>(steps), total / median(t_concurrent));
    std::printf(" \"seconds_reps\": [");
    for (int r = 0; r < reps; ++r) std::printf("%s%.6g", r ? ", " : "", t_total[static_cast<std::size_t>(r)]);
    std::printf("], \"errors\": [");
    for (int r = 0; r < reps; ++r) std::printf("%s%.17g", r ? ", " : "", errors[static_cast<std::size_t>(r)]);
    std::printf("]}");
    std::fflush(stdout);
    first = false;
  }
  std::printf("\n}}\n");
  return 0;
}
