// One training step of the width-n two-layer ReLU network (forward, backward, Adam) on a batch of
// B inputs of dimension d, float32, one thread; medians over repetitions of `steps` steps, against
// one core's sgemm rate measured in the same run. bench/reference/teacher_train_torch.py times the
// same step in PyTorch; bench/run_teacher.sh compares them. Usage: bench_teacher_train [reps=5]
// [cases=a,b]. Prints one JSON object.
//   a  n = 64,   d = 10, batch 64     (2000 steps)
//   b  n = 4096, d = 10, batch 1024   (50 steps)
// FLOPs of a step (flops_per_step): 4 B n d for the two products (H = X W^T and grad_W = D^T X,
// 2 B n d each) plus 4 B n for the elementwise work that is a multiply-add per entry of H
// (f += ReLU(h) a_i and grad_a += ReLU(h) delta_b). Not counted: the ReLU compares and masks, the
// loss and sigmoid per row, the Adam update (about 10 n (d + 1)), and any recomputation.
#include <Eigen/Dense>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/simd.hpp"
#include "scalinglab/teacher/relu_network.hpp"

using namespace scalinglab;
using namespace scalinglab::teacher;
using namespace scalinglab::bench;

namespace {

// One core's sustained sgemm rate (FLOP/s): OpenBLAS on square 1024 x 1024 float matrices, one
// BLAS thread, the best of `reps` products.
double sgemm_rate(int reps) {
  set_blas_threads(1);
  const int n = 1024;
  Eigen::MatrixXf A = Eigen::MatrixXf::Random(n, n), B = Eigen::MatrixXf::Random(n, n), C(n, n);
  C.noalias() = A * B;  // warm-up
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    C.noalias() = A * B;
    best = std::min(best, seconds_since(t0));
  }
  return 2.0 * n * n * n / best;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const std::string which = argc > 2 ? argv[2] : "a,b";
  set_blas_threads(1);
  struct Case {
    std::string name;
    std::size_t n, d, batch;
    int steps;
  };
  const std::vector<Case> cases = {{"a", 64, 10, 64, 2000}, {"b", 4096, 10, 1024, 50}};
  // Each repetition measures the sgemm rate next to the steps (a machine whose clock drifts, or
  // that is shared, then compares like with like); medians over repetitions.
  std::vector<double> rates;
  std::printf("{\"impl\": \"scalinglab\", \"instruction_set\": \"%s\", \"kernel_lanes\": %d, \"threads\": 1, \"reps\": %d, "
              "\"cases\": {", simd::instruction_set(), detail::relu_kernel_lanes(), reps);
  bool first = true;
  for (const Case& c : cases) {
    if (which.find(c.name) == std::string::npos) continue;
    Stream s(7);
    ReluNetwork net(c.d, c.n, s);
    MatrixRF X(static_cast<Eigen::Index>(c.batch), static_cast<Eigen::Index>(c.d));
    s.fill_normal(X.data(), c.batch * c.d, 1.0f);
    VectorF y(static_cast<Eigen::Index>(c.batch));
    for (Eigen::Index b = 0; b < y.size(); ++b) y[b] = s.uniform() < 0.5 ? 1.0f : 0.0f;
    NetworkOptimizer opt;
    for (int w = 0; w < 20; ++w) net.train_step(X, y, opt);  // warm-up
    const double flops = 4.0 * static_cast<double>(c.batch * c.n) * static_cast<double>(c.d + 1);
    std::vector<double> t, fraction;
    double sink = 0;
    for (int r = 0; r < reps; ++r) {
      const double rate = sgemm_rate(3);
      rates.push_back(rate);
      const auto t0 = Clock::now();
      for (int k = 0; k < c.steps; ++k) sink += net.train_step(X, y, opt);
      const double sec = seconds_since(t0) / c.steps;
      t.push_back(sec);
      fraction.push_back(flops / sec / rate);
    }
    // Two copies at once, one per thread (a sweep's tasks): each copy's time per step, and the
    // efficiency t_1 / t_2 (the shared L3 cache and memory are what it measures).
    std::vector<double> t2;
    for (int r = 0; r < reps; ++r) {
      const auto secs = concurrent_seconds(2, [&](int copy) {
        Stream sc(100 + static_cast<uint64_t>(copy));
        ReluNetwork own(c.d, c.n, sc);
        NetworkOptimizer o2;
        double sk = 0;
        for (int k = 0; k < c.steps; ++k) sk += own.train_step(X, y, o2);
        if (sk == 42) std::printf(" ");
      });
      for (double x : secs) t2.push_back(x / c.steps);
    }
    const double sec = median(t);
    std::printf("%s\n  \"%s\": {\"n\": %zu, \"d\": %zu, \"batch\": %zu, \"flops_per_step\": %.0f, \"seconds_per_step\": %.6g, "
                "\"flop_rate\": %.6g, \"sgemm_fraction\": %.4f, \"concurrent\": {\"copies\": 2, \"seconds_per_step\": %.6g, "
                "\"efficiency\": %.4f}, \"checksum\": %.6g}",
                first ? "" : ",", c.name.c_str(), c.n, c.d, c.batch, flops, sec, flops / sec, median(fraction), median(t2),
                sec / median(t2), sink);
    first = false;
  }
  std::printf("\n}, \"sgemm_rate\": %.6g}\n", rates.empty() ? 0.0 : median(rates));
  return 0;
}
