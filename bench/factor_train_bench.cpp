// One training step of the factor world's gated MLP (Arnal et al. 2024) at the paper's size, against
// the machine's sgemm rate: (compression) one full-batch epoch on the exact p(y|x) of all N inputs,
// (single_pass) one step on a batch of 8192 sampled pairs; forward, backward and the Adam update,
// float32. N = M = 4096 (input factors 2x12, output factors 8x4, |I_j| = 2), d = 64, h = 128, L = 1.
// bench/reference/factor_train_torch.py times the same steps in PyTorch; bench/run_factor.sh
// compares them. Usage: bench_factor_train [reps=5] [threads=2] [steps=5]. Prints one JSON object.
#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/factor/adam.hpp"
#include "scalinglab/factor/factor_task.hpp"
#include "scalinglab/factor/factor_training.hpp"
#include "scalinglab/factor/gated_mlp.hpp"

using namespace scalinglab;
using namespace scalinglab::factor;
using namespace scalinglab::bench;

namespace {

// Sustained sgemm rate (FLOP/s) of a large square product on `threads` BLAS threads.
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
  return 2.0 * n * n * n / median(t);
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
  std::vector<float> table(N * M);
  task.table(table.data());
  std::vector<double> neg_entropy(N);
  for (std::size_t x = 0; x < N; ++x) neg_entropy[x] = -task.conditional_entropy(x);
  std::vector<uint32_t> all(N);
  for (std::size_t x = 0; x < N; ++x) all[x] = static_cast<uint32_t>(x);
  const std::size_t B = 8192;
  std::vector<uint32_t> bx(B), by(B);
  for (std::size_t b = 0; b < B; ++b) bx[b] = static_cast<uint32_t>(s.below(N)), by[b] = task.sample_output(bx[b], s);

  const double peak = sgemm_rate(threads, reps);
  MlpEngine engine(shape);
  std::vector<float> grad(net.size());
  Adam adam(net.size());
  set_blas_threads(1);
  auto time_case = [&](const std::string& name, bool soft) {
    Targets t;
    if (soft) t.table = table.data(), t.neg_entropy = neg_entropy.data();
    else t.labels = by.data();
    const uint32_t* inputs = soft ? all.data() : bx.data();
    const std::size_t rows = soft ? N : B;
    auto step = [&] {
      engine.loss_and_gradient(net, inputs, rows, t, grad.data(), true, false, threads);
      adam.step(net.theta.data(), grad.data(), 0, net.size(), 1e-4);
    };
    for (int w = 0; w < 2; ++w) step();
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      for (int k = 0; k < steps; ++k) step();
      times.push_back(seconds_since(t0) / steps);
    }
    const double sec = median(times), flops = static_cast<double>(rows) * flops_per_sample(64, 128, 1, M);
    std::printf("\"%s\": {\"N\": %zu, \"M\": %zu, \"d\": 64, \"h\": 128, \"L\": 1, \"batch\": %zu, "
                "\"flops_per_step\": %.0f, \"seconds_per_step\": %.6g, \"flop_rate\": %.6g, \"sgemm_fraction\": %.4f}",
                name.c_str(), N, M, rows, flops, sec, flops / sec, flops / sec / peak);
  };
  std::printf("{\"impl\": \"scalinglab\", \"threads\": %d, \"reps\": %d, \"sgemm_rate\": %.6g, \"cases\": {", threads,
              reps, peak);
  time_case("compression", true);
  std::printf(", ");
  time_case("single_pass", false);
  std::printf("}}\n");
}
