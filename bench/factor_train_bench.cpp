// One training step of the factor world's gated MLP (Arnal et al. 2024) at the paper's size, against
// the machine's sgemm rate: (compression) one full-batch epoch on the exact p(y|x) of all N inputs,
// (single_pass) one step on a batch of 8192 sampled pairs; forward, backward and the Adam update,
// float32 (targets generated from the factors, as factor.train does). N = M = 4096 (input factors 2x12, output factors 8x4, |I_j| = 2), d = 64, h = 128, L = 1.
// bench/reference/factor_train_torch.py times the same steps in PyTorch; bench/run_factor.sh
// compares them. Usage: bench_factor_train [reps=5] [threads=2] [steps=5]. Prints one JSON object.
#include <Eigen/Dense>
#include <cblas.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/simd.hpp"
#include "scalinglab/core/vector_exp.hpp"
#include "scalinglab/factor/adam.hpp"
#include "scalinglab/factor/factor_task.hpp"
#include "scalinglab/factor/factor_training.hpp"
#include "scalinglab/factor/gated_mlp.hpp"

using namespace scalinglab;
using namespace scalinglab::factor;
using namespace scalinglab::bench;

namespace {

// Sustained sgemm rate (FLOP/s) of a large square product on `threads` BLAS threads (the best of
// `reps`).
double sgemm_rate(int threads, int reps) {
  set_blas_threads(threads);
  const int n = 2048;
  Eigen::MatrixXf A = Eigen::MatrixXf::Random(n, n), B = Eigen::MatrixXf::Random(n, n), C(n, n);
  C.noalias() = A * B;  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    C.noalias() = A * B;
    t.push_back(seconds_since(t0));
  }
  set_blas_threads(1);
  return 2.0 * n * n * n / *std::min_element(t.begin(), t.end());
}


// The step's matrix products alone, at the shapes the engine gives the BLAS (chunks of `chunk` rows:
// the MLP's six products, the logits, dU and the W_out gradient), on one core: CPU-seconds per step
// of `rows` rows, the best of `reps`. What the products cost at these shapes, short and wide (inner
// dimension d = 64), as opposed to the square sgemm's rate.
double products_alone(std::size_t rows, std::size_t chunk, std::size_t d, std::size_t h, std::size_t M, int reps) {
  using MatRF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  set_blas_threads(1);
  const auto c = static_cast<Eigen::Index>(chunk), D = static_cast<Eigen::Index>(d), H = static_cast<Eigen::Index>(h),
             m = static_cast<Eigen::Index>(M);
  MatRF U = MatRF::Random(c, D), W1 = MatRF::Random(H, D), W3 = MatRF::Random(H, D), W2 = MatRF::Random(D, H),
        Wout = MatRF::Random(m, D) * 0.1f, A(c, H), G(c, H), Z(c, D), logits(c, m), dU(c, D), gWout = MatRF::Zero(m, D),
        gW1 = MatRF::Zero(H, D), gW3 = MatRF::Zero(H, D), gW2 = MatRF::Zero(D, H), dS(c, H);
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    for (std::size_t done = 0; done < rows; done += chunk) {
      A.noalias() = U * W1.transpose();
      G.noalias() = U * W3.transpose();
      Z.noalias() += A * W2.transpose();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(c), static_cast<int>(m), static_cast<int>(D), 1.0f,
                  U.data(), static_cast<int>(D), Wout.data(), static_cast<int>(D), 0.0f, logits.data(), static_cast<int>(m));
      gWout.noalias() += logits.transpose() * U;
      dU.noalias() = logits * Wout;
      gW2.noalias() += dU.transpose() * A;
      dS.noalias() = dU * W2;
      gW1.noalias() += dS.transpose() * U;
      gW3.noalias() += G.transpose() * U;
      dU.noalias() = dS * W1;
      dU.noalias() += G * W3;
    }
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

// Exponentials per second on one core over a row of 4096 floats held in L1, the best of `reps`:
// the loss head's kernel (exp(z - max) and its sum, core/vector_exp.hpp) and Eigen's vectorised
// exp (the gates').
struct ExpRates {
  double head, eigen;
};
ExpRates exp_rates(int reps) {
  Eigen::ArrayXf x = Eigen::ArrayXf::Random(4096) * 20.0f - 10.0f, y(4096);
  const int inner = 2000;
  double best_head = 1e300, best_eigen = 1e300, sink = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    for (int k = 0; k < inner; ++k) {
      y = x;
      sink += exp_shift_sum_float(y.data(), 4096, static_cast<float>(k & 1));
    }
    best_head = std::min(best_head, seconds_since(t0));
    t0 = Clock::now();
    for (int k = 0; k < inner; ++k) {
      y = (x - static_cast<float>(k & 1)).exp();
      x(k & 4095) += y(0) * 1e-30f;  // keeps the loop from being hoisted
    }
    best_eigen = std::min(best_eigen, seconds_since(t0));
  }
  if (sink == 42) std::printf(" ");
  return {4096.0 * inner / best_head, 4096.0 * inner / best_eigen};
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const int threads = argc > 2 ? std::max(1, std::atoi(argv[2])) : 2;
  const int steps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  FactorSpec fs;
  fs.input = parse_factors("2x12");
  fs.output = parse_factors("8x4");
  Stream s(7);
  const FactorTask task(fs, s);
  const std::size_t N = task.N(), M = task.M();
  MlpShape shape;
  shape.N = N, shape.M = M, shape.d = 64, shape.h = 128, shape.L = 1;
  GatedMlp net(shape);
  init_default(net, s);
  std::vector<double> neg_entropy(N);
  for (std::size_t x = 0; x < N; ++x) neg_entropy[x] = -task.conditional_entropy(x);
  std::vector<uint32_t> all(N);
  for (std::size_t x = 0; x < N; ++x) all[x] = static_cast<uint32_t>(x);
  const std::size_t B = 8192;
  std::vector<uint32_t> bx(B), by(B);
  for (std::size_t b = 0; b < B; ++b) bx[b] = static_cast<uint32_t>(s.below(N)), by[b] = task.sample_output(bx[b], s);

  MlpEngine engine(shape);
  std::vector<float> grad(net.size());
  Adam adam(net.size());
  struct Case {
    const char* name;
    bool soft;
    std::vector<double> seconds, fraction, seconds_one;
  };
  std::vector<Case> cases = {{"compression", true, {}, {}, {}}, {"single_pass", false, {}, {}, {}}};
  auto step = [&](const Case& c, int workers) {
    Targets t;
    if (c.soft) t.row = [&](std::size_t x, float* out) { task.row(x, out); }, t.neg_entropy = neg_entropy.data();
    else t.labels = by.data();
    engine.loss_and_gradient(net, c.soft ? all.data() : bx.data(), c.soft ? N : B, t, grad.data(), true, false, workers);
    adam.step(net.theta.data(), grad.data(), 0, net.size(), 1e-4, workers);
  };
  for (auto& c : cases)
    for (int w = 0; w < 2; ++w) step(c, threads);
  // Each repetition measures the sgemm rate next to the steps, so that a machine whose clock
  // drifts during the run compares like with like; medians over repetitions.
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    const double rate = sgemm_rate(threads, 3);
    rates.push_back(rate);
    for (auto& c : cases) {
      auto t0 = Clock::now();
      for (int k = 0; k < steps; ++k) step(c, threads);
      const double sec = seconds_since(t0) / steps;
      const double flops = static_cast<double>(c.soft ? N : B) * flops_per_sample(64, 128, 1, M);
      c.seconds.push_back(sec);
      c.fraction.push_back(flops / sec / rate);
      // The same steps on one thread: the speed-up of `threads` over one, next to it in time.
      t0 = Clock::now();
      for (int k = 0; k < steps; ++k) step(c, 1);
      c.seconds_one.push_back(seconds_since(t0) / steps);
    }
  }
  // Where the CPU time of a step goes (passes of `steps` steps with the engine's phase clock, the
  // Adam update timed around it), against each phase's own bound on this machine: the products at
  // the one-core share of the sgemm rate and alone at their shapes (measured next to each pass, so
  // that the ratio of the two compares like with like; medians over `reps` passes), the
  // exponentials of the head (rows x M) at its kernel's rate and of the gates (2 rows x h) at Eigen's.
  const ExpRates exps_per_second = exp_rates(5);
  std::vector<std::vector<double>> products_bound(cases.size()), step_ratio(cases.size());
  std::vector<PhaseSeconds> phases(cases.size());
  std::vector<double> adam_seconds(cases.size(), 0.0);
  for (int r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      const double alone = products_alone(c.soft ? N : B, engine.chunk_rows(), 64, 128, M, 1);
      PhaseSeconds pass;
      double adam_pass = 0;
      engine.time_phases(&pass);
      for (int k = 0; k < steps; ++k) {
        Targets t;
        if (c.soft) t.row = [&](std::size_t x, float* out) { task.row(x, out); }, t.neg_entropy = neg_entropy.data();
        else t.labels = by.data();
        engine.loss_and_gradient(net, c.soft ? all.data() : bx.data(), c.soft ? N : B, t, grad.data(), true, false, threads);
        const auto t0 = Clock::now();
        adam.step(net.theta.data(), grad.data(), 0, net.size(), 1e-4, threads);
        adam_pass += seconds_since(t0) * threads;
      }
      engine.time_phases(nullptr);
      const double cpu = (pass.products + pass.head + pass.targets + pass.elementwise + pass.reduction + adam_pass) / steps;
      products_bound[i].push_back(alone);
      step_ratio[i].push_back(cpu / alone);
      phases[i].products += pass.products / reps, phases[i].head += pass.head / reps;
      phases[i].targets += pass.targets / reps, phases[i].elementwise += pass.elementwise / reps;
      phases[i].reduction += pass.reduction / reps;
      adam_seconds[i] += adam_pass / reps;
    }
  }
  std::printf("{\"impl\": \"scalinglab\", \"instruction_set\": \"%s\", \"threads\": %d, \"reps\": %d, \"sgemm_rate\": %.6g, "
              "\"cases\": {", simd::instruction_set(), threads, reps, median(rates));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::size_t rows = c.soft ? N : B;
    const double sec = median(c.seconds), flops = static_cast<double>(rows) * flops_per_sample(64, 128, 1, M);
    std::printf("%s\"%s\": {\"N\": %zu, \"M\": %zu, \"d\": 64, \"h\": 128, \"L\": 1, \"batch\": %zu, "
                "\"flops_per_step\": %.0f, \"seconds_per_step\": %.6g, \"flop_rate\": %.6g, \"sgemm_fraction\": %.4f, "
                "\"seconds_per_step_one_thread\": %.6g, \"step_over_products_alone\": %.4f, ",
                i ? ", " : "", c.name, N, M, rows, flops, sec, flops / sec, median(c.fraction), median(c.seconds_one),
                median(step_ratio[i]));
    // CPU-seconds per step by phase, and the phases' bounds (CPU-seconds at this machine's rates).
    const PhaseSeconds& p = phases[i];
    const double per = 1.0 / steps, core_rate = median(rates) / threads;
    const double head_exps = static_cast<double>(rows) * static_cast<double>(M), gate_exps = 2.0 * rows * 128;
    std::printf("\"cpu_seconds\": {\"products\": %.6g, \"head\": %.6g, \"targets\": %.6g, \"elementwise\": %.6g, "
                "\"reduction\": %.6g, \"adam\": %.6g}, "
                "\"bound_seconds\": {\"products\": %.6g, \"products_alone\": %.6g, \"head_exp\": %.6g, \"gate_exp\": %.6g}, "
                "\"exp_rate\": %.6g, \"exp_rate_eigen\": %.6g, \"parameters\": %zu}",
                p.products * per, p.head * per, p.targets * per, p.elementwise * per, p.reduction * per,
                adam_seconds[i] * per, flops / core_rate, median(products_bound[i]), head_exps / exps_per_second.head,
                gate_exps / exps_per_second.eigen, exps_per_second.head, exps_per_second.eigen, net.size());
  }
  std::printf("}}\n");
}
