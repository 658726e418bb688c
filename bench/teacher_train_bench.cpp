// One training step of the width-n two-layer ReLU network (forward, backward, Adam) on a batch of
// B inputs of dimension d, float32, one thread; medians over repetitions of `steps` steps.
// bench/reference/teacher_train_torch.py times the same step in PyTorch; bench/run_teacher.sh
// compares them. Usage: bench_teacher_train [reps=5] [cases=a,b]. Prints one JSON object.
//   a  n = 64,   d = 10, batch 64     (2000 steps)
//   b  n = 4096, d = 10, batch 1024   (50 steps)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/teacher/relu_network.hpp"

using namespace scalinglab;
using namespace scalinglab::teacher;
using namespace scalinglab::bench;

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
  std::printf("{\"impl\": \"scalinglab\", \"threads\": 1, \"reps\": %d, \"cases\": {", reps);
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
    std::vector<double> t;
    double sink = 0;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      for (int k = 0; k < c.steps; ++k) sink += net.train_step(X, y, opt);
      t.push_back(seconds_since(t0) / c.steps);
    }
    std::printf("%s\n  \"%s\": {\"n\": %zu, \"d\": %zu, \"batch\": %zu, \"seconds_per_step\": %.6g, \"checksum\": %.6g}",
                first ? "" : ",", c.name.c_str(), c.n, c.d, c.batch, median(t), sink);
    first = false;
  }
  std::printf("\n}}\n");
  return 0;
}
