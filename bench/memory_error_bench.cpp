// Benchmark of memory.error at N = 10^4, M = 100, d = 1024 (T = inf, scheme q0): time of one run
// (embedding draw + error), split into its parts, and the achieved FLOP/s of the error evaluation
// against the machine's sgemm rate measured in the same run on the same shapes.
//
// A second part times many small runs of the full measure (data sampling included) at the sizes of
// the paper's Figures 3-4 (N = 100, M = 5, d = 64, T = 1000, scheme q0), where per-call overhead
// dominates a notebook.
//
// Output: one JSON object on stdout (bench/run_memory_error.sh compares it with the PyTorch
// reference). Usage: bench_memory_error [reps=7] [threads=1]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_timing.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/memory/memory_error.hpp"
#include "scalinglab/memory/memory_scheme.hpp"
#include "scalinglab/memory/zipf_task.hpp"

using namespace scalinglab;
using namespace scalinglab::memory;
using namespace scalinglab::bench;

namespace {
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  set_blas_threads(threads);
  set_task_threads(threads);  // memory_error shares its pieces among the task's threads
  const std::size_t N = 10000, M = 100, d = 1024;

  // sgemm rate on the shape of the scores product: (M x d) times (d x N).
  MatrixRF A = MatrixRF::Random(M, d), Bt = MatrixRF::Random(N, d);
  Eigen::MatrixXf C(M, N);
  std::vector<double> t_gemm;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    C.noalias() = A * Bt.transpose();
    t_gemm.push_back(seconds_since(t0));
  }
  const double gemm_flops = 2.0 * M * N * d;
  const double sgemm_rate = gemm_flops / median(t_gemm);

  Stream s(1);
  const ZipfTask task = make_zipf_task(N, M, 2.0, "mod", s);
  const std::vector<double> q = scheme_weights_population({Scheme::q0, 0, 0}, task.p);
  std::vector<double> t_draw, t_error, t_total;
  ErrorWorkspace ws;
  Embeddings emb;
  double error = 0;
  for (int r = 0; r < reps; ++r) {
    Stream es(100 + static_cast<uint64_t>(r));
    const auto t0 = Clock::now();
    draw_embeddings(N, M, d, EmbeddingDist::gaussian, EmbeddingDist::sphere, es, emb);
    const double td = seconds_since(t0);
    const auto t1 = Clock::now();
    error = memory_error(task, q, emb, ws);
    const double te = seconds_since(t1);
    t_draw.push_back(td);
    t_error.push_back(te);
    t_total.push_back(td + te);
  }
  // Work of the error evaluation: B = S E (N d), C = (U U^T) B (2 M^2 d + M^2 d), scores (2 M N d).
  const double error_flops = 2.0 * N * d + 3.0 * M * M * d + 2.0 * M * N * d;
  const double error_rate = error_flops / median(t_error);
  // Small runs of the whole measure, one thread.
  const Measure& measure = world_registry().get("memory.error");
  const Params small = resolve_params(
      measure.params, {{"N", "100"}, {"M", "5"}, {"d", "64"}, {"T", "1000"}, {"scheme", "q0"}}, "bench");
  const int small_runs = 2000;
  std::vector<double> t_small;
  double small_error = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    for (int k = 0; k < small_runs; ++k) small_error += run_task(measure, small, 1, static_cast<uint64_t>(k)).get("error");
    t_small.push_back(seconds_since(t0) / small_runs);
  }
  small_error /= static_cast<double>(small_runs) * reps;

  std::printf(
      "{\"small_seconds_per_run\": %.9f, \"small_error\": %.5f,\n", median(t_small), small_error);
  std::printf(
      " \"N\": %zu, \"M\": %zu, \"d\": %zu, \"threads\": %d, \"reps\": %d, \"error\": %.6f,\n"
      " \"seconds_total\": %.6f, \"seconds_draw\": %.6f, \"seconds_error\": %.6f,\n"
      " \"sgemm_gflops\": %.2f, \"error_gflops\": %.2f, \"fraction_of_sgemm\": %.3f}\n",
      N, M, d, threads, reps, error, median(t_total), median(t_draw), median(t_error), sgemm_rate / 1e9,
      error_rate / 1e9, error_rate / sgemm_rate);
  return 0;
}
