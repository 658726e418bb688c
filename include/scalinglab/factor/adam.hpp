#pragma once
// Adam as torch.optim.Adam computes it (defaults: betas 0.9, 0.999, eps 1e-8, no weight decay):
//   m <- b1 m + (1 - b1) g,  v <- b2 v + (1 - b2) g^2,
//   theta <- theta - (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// over a contiguous float buffer; the bias corrections are computed in double, as Python does.
#include <cstddef>
#include <vector>

namespace scalinglab::factor {

struct Adam {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  std::vector<float> m, v;
  long t = 0;

  explicit Adam(std::size_t size) : m(size, 0.0f), v(size, 0.0f) {}
  // One step on theta[begin, end) with gradient g (same indexing as theta); elementwise, so the
  // split over `threads` does not change the result.
  void step(float* theta, const float* g, std::size_t begin, std::size_t end, double lr, int threads = 1);
};

}  // namespace scalinglab::factor
