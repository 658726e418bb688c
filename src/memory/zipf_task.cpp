#include "scalinglab/memory/zipf_task.hpp"

#include <algorithm>
#include <stdexcept>

#include "scalinglab/core/zipf.hpp"

namespace scalinglab::memory {

ZipfTask make_zipf_task(std::size_t N, std::size_t M, double alpha, const std::string& labels, Stream& s) {
  ZipfTask t;
  t.N = N;
  t.M = M;
  t.alpha = alpha;
  // Many runs share (N, alpha): keep the last probabilities per thread instead of N pow() calls.
  thread_local std::size_t cached_N = 0;
  thread_local double cached_alpha = -1;
  thread_local std::vector<double> cached_p;
  if (cached_N != N || cached_alpha != alpha) {
    cached_p = zipf_probabilities(N, alpha);
    cached_N = N;
    cached_alpha = alpha;
  }
  t.p = cached_p;
  t.label.resize(N);
  if (labels == "mod") {
    for (std::size_t x = 0; x < N; ++x) t.label[x] = static_cast<uint32_t>(x % M);
  } else if (labels == "block") {  // contiguous blocks of the frequency ranking: p(y) decreases like a Zipf law
    for (std::size_t x = 0; x < N; ++x)
      t.label[x] = static_cast<uint32_t>(std::min(M - 1, x * M / N));
  } else if (labels == "random") {
    for (std::size_t x = 0; x < N; ++x) t.label[x] = static_cast<uint32_t>(s.below(M));
  } else {
    throw std::invalid_argument("unknown label map: " + labels);
  }
  return t;
}

std::vector<double> class_marginal(const ZipfTask& task) {
  std::vector<double> py(task.M, 0.0);
  for (std::size_t x = 0; x < task.N; ++x) py[task.label[x]] += task.p[x];
  return py;
}

}  // namespace scalinglab::memory
