#include "scalinglab/teacher/relu_network.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "scalinglab/core/simd.hpp"

namespace scalinglab::teacher {

ReluNetwork::ReluNetwork(std::size_t d, std::size_t n, Stream& s) {
  W.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  a.resize(static_cast<Eigen::Index>(n));
  s.fill_normal(W.data(), n * d, 1.0f / std::sqrt(static_cast<float>(d)));
  s.fill_normal(a.data(), n, 1.0f / std::sqrt(static_cast<float>(n)));
}

namespace {

// ---- the kernels ----------------------------------------------------------------------------
// Neurons are packed by blocks of VL = V * L (V vectors of L lanes): block nb holds, for k < d, the
// VL weights w_{nb VL + j, k} (j < VL) contiguously, zeros past n (a zero neuron has h = 0: no ReLU
// output, no gradient). A tile of H is stored block by block, row by row: (nb, r) holds the VL
// entries h_{r, nb VL + j}. Pass 1 walks the blocks with the block's weights in registers and the
// tile's rows inside; pass 2 walks them again with the block's gradients in registers. A large d
// is split into chunks of columns, one pass over the tile each (pass 1 adds to the partial H).

constexpr int kWidest = simd::kLanes<float>, kRegisters = simd::kRegisters;
constexpr int kMaxD = 12;  // the most columns of W a kernel holds in registers

template <int L>
using Vec = simd::Simd<float, L>;
template <int L>
inline Vec<L> load(const float* p) {
  return simd::load<float, L>(p);
}
template <int L>
inline void store(float* p, Vec<L> v) {
  simd::store<float, L>(p, v);
}
template <int L>
inline Vec<L> splat(float x) {
  return simd::splat<float, L>(x);
}
template <int L>
inline Vec<L> relu(Vec<L> h) {
  return simd::relu<float, L>(h);
}

// Vectors of neurons per block for a chunk of D columns: pass 2 holds D V gradient vectors, V of
// grad_a, V of h and V of the masked delta, plus two broadcasts.
constexpr int blocks_of(int D, int L) {
  if (L == 1) return 4;
  const int v = (kRegisters - 2) / (D + 3);
  return v < 1 ? 1 : (v > 4 ? 4 : v);
}

// Columns per chunk when d is split, and the vectors per block then (the chunks of a d share a
// block width): with 32 registers, chunks of 8 keep two vectors per block (the broadcasts of x
// shared by both), which beats one vector per block with larger chunks.
constexpr int kChunk = kRegisters >= 32 ? 8 : 11;
constexpr int kChunkBlocks(int L) { return blocks_of(kChunk, L); }
// d is one chunk when its kernel fits the registers and keeps at least as many vectors per block.
constexpr bool one_chunk(int d, int L) {
  return d <= kMaxD && blocks_of(d, L) >= kChunkBlocks(L) && (L == 1 || (d + 3) * blocks_of(d, L) + 2 <= kRegisters);
}

struct Shape {
  int d, rows, nblocks;
};

// Pass 1 over the columns k0 .. k0 + D - 1 of d: Ht <- the tile's H (its partial sums when first
// is false: the chunk is added to them), and when last, facc (rows x L, zeros on entry) += per-lane
// sums of ReLU(h) a over the blocks.
template <int L, int D, int V>
void pass1(const float* __restrict Wp, const float* __restrict ap, const float* __restrict X, Shape s, int k0,
           bool first, bool last, float* __restrict Ht, float* __restrict facc) {
  constexpr int VL = V * L;
  for (int nb = 0; nb < s.nblocks; ++nb) {
    Vec<L> w[D][V], av[V];
    const float* wb = Wp + (static_cast<std::ptrdiff_t>(nb) * s.d + k0) * VL;
    for (int k = 0; k < D; ++k)
      for (int v = 0; v < V; ++v) w[k][v] = load<L>(wb + k * VL + v * L);
    for (int v = 0; v < V; ++v) av[v] = load<L>(ap + nb * VL + v * L);
    float* ht = Ht + static_cast<std::ptrdiff_t>(nb) * s.rows * VL;
    for (int r = 0; r < s.rows; ++r) {
      const float* x = X + static_cast<std::ptrdiff_t>(r) * s.d + k0;
      Vec<L> h[V];
      for (int v = 0; v < V; ++v) h[v] = first ? w[0][v] * splat<L>(x[0]) : load<L>(ht + r * VL + v * L) + w[0][v] * splat<L>(x[0]);
      for (int k = 1; k < D; ++k) {
        const Vec<L> xk = splat<L>(x[k]);
        for (int v = 0; v < V; ++v) h[v] += w[k][v] * xk;
      }
      for (int v = 0; v < V; ++v) store<L>(ht + r * VL + v * L, h[v]);
      if (last) {
        Vec<L> f = load<L>(facc + r * L);
        for (int v = 0; v < V; ++v) f += relu<L>(h[v]) * av[v];
        store<L>(facc + r * L, f);
      }
    }
  }
}

// Pass 2 over the columns k0 .. k0 + D - 1: gWp (packed like Wp, before the factor a_i) +=
// sum_r [h > 0] delta_r x_r; when first, gap += sum_r ReLU(h) delta_r.
template <int L, int D, int V>
void pass2(const float* __restrict Ht, const float* __restrict X, const float* __restrict delta, Shape s, int k0,
           bool first, float* __restrict gWp, float* __restrict gap) {
  constexpr int VL = V * L;
  for (int nb = 0; nb < s.nblocks; ++nb) {
    Vec<L> g[D][V], ga[V];
    float* gw = gWp + (static_cast<std::ptrdiff_t>(nb) * s.d + k0) * VL;
    for (int k = 0; k < D; ++k)
      for (int v = 0; v < V; ++v) g[k][v] = load<L>(gw + k * VL + v * L);
    for (int v = 0; v < V; ++v) ga[v] = load<L>(gap + nb * VL + v * L);
    const float* ht = Ht + static_cast<std::ptrdiff_t>(nb) * s.rows * VL;
    for (int r = 0; r < s.rows; ++r) {
      const Vec<L> db = splat<L>(delta[r]);
      Vec<L> m[V];
      for (int v = 0; v < V; ++v) {
        const Vec<L> h = load<L>(ht + r * VL + v * L);
        if (first) ga[v] += relu<L>(h) * db;
        m[v] = h > Vec<L>{} ? db : Vec<L>{};
      }
      const float* x = X + static_cast<std::ptrdiff_t>(r) * s.d + k0;
      for (int k = 0; k < D; ++k) {
        const Vec<L> xk = splat<L>(x[k]);
        for (int v = 0; v < V; ++v) g[k][v] += m[v] * xk;
      }
    }
    for (int k = 0; k < D; ++k)
      for (int v = 0; v < V; ++v) store<L>(gw + k * VL + v * L, g[k][v]);
    if (first)
      for (int v = 0; v < V; ++v) store<L>(gap + nb * VL + v * L, ga[v]);
  }
}

using Pass1 = void (*)(const float*, const float*, const float*, Shape, int, bool, bool, float*, float*);
using Pass2 = void (*)(const float*, const float*, const float*, Shape, int, bool, float*, float*);

template <int L>
float row_sum(const float* lanes) {
  return simd::lane_sum<float, L>(load<L>(lanes));
}

// The passes for 1 .. kMaxD columns with as many vectors per block as the registers allow (d in
// one chunk), and for the chunks of a larger d (1 .. kChunk columns, kChunkBlocks vectors).
template <int L, int... D>
constexpr std::array<std::pair<Pass1, Pass2>, sizeof...(D)> widest_blocks(std::integer_sequence<int, D...>) {
  return {std::pair<Pass1, Pass2>{&pass1<L, D + 1, blocks_of(D + 1, L)>, &pass2<L, D + 1, blocks_of(D + 1, L)>}...};
}
template <int L, int... D>
constexpr std::array<std::pair<Pass1, Pass2>, sizeof...(D)> chunk_blocks(std::integer_sequence<int, D...>) {
  return {std::pair<Pass1, Pass2>{&pass1<L, D + 1, kChunkBlocks(L)>, &pass2<L, D + 1, kChunkBlocks(L)>}...};
}

// The kernels for one d: d split into chunks of nearly equal sizes, or one chunk.
struct Kernel {
  int d, lanes, block;  // neurons per block: lanes * vectors
  int chunks;
  const std::pair<Pass1, Pass2>* by_size;  // index: the chunk's columns - 1
  float (*sum)(const float*);               // f of a row from its lanes in facc

  int chunk_start(int c) const { return c * (d / chunks) + std::min(c, d % chunks); }
  int chunk_size(int c) const { return d / chunks + (c < d % chunks ? 1 : 0); }
  void run_pass1(const float* Wp, const float* ap, const float* X, Shape s, float* Ht, float* facc) const {
    for (int c = 0; c < chunks; ++c)
      by_size[chunk_size(c) - 1].first(Wp, ap, X, s, chunk_start(c), c == 0, c == chunks - 1, Ht, facc);
  }
  void run_pass2(const float* Ht, const float* X, const float* delta, Shape s, float* gWp, float* gap) const {
    for (int c = 0; c < chunks; ++c) by_size[chunk_size(c) - 1].second(Ht, X, delta, s, chunk_start(c), c == 0, gWp, gap);
  }
};

template <int L>
Kernel kernel_for(int d) {
  static constexpr auto widest = widest_blocks<L>(std::make_integer_sequence<int, kMaxD>{});
  static constexpr auto chunked = chunk_blocks<L>(std::make_integer_sequence<int, kChunk>{});
  if (d == 0) return Kernel{0, L, L, 0, widest.data(), &row_sum<L>};  // f = 0, no gradient
  if (one_chunk(d, L)) return Kernel{d, L, L * blocks_of(d, L), 1, widest.data(), &row_sum<L>};
  return Kernel{d, L, L * kChunkBlocks(L), (d + kChunk - 1) / kChunk, chunked.data(), &row_sum<L>};
}

std::atomic<int> chosen_lanes{0};

Kernel kernel_for_lanes(int d) {
  switch (detail::relu_kernel_lanes()) {
    case 1: return kernel_for<1>(d);
    case 4: return kernel_for<4>(d);
#if defined(__AVX__) || defined(__AVX512F__)
    case 8: return kernel_for<8>(d);
#endif
#if defined(__AVX512F__)
    case 16: return kernel_for<16>(d);
#endif
  }
  return kernel_for<kWidest>(d);
}

// The packed buffers' storage: 64-byte aligned views into vectors with room to spare.
float* aligned(std::vector<float>& v, std::size_t size) {
  if (v.size() < size + 16) v.resize(size + 16);
  auto p = reinterpret_cast<std::uintptr_t>(v.data());
  return reinterpret_cast<float*>((p + 63) & ~std::uintptr_t{63});
}

// Rows per tile: the tile of H (rows x padded n floats) within about 512 KB, so that it stays in
// a 1 MB L2 cache between the two passes (measured at n = 4096, d = 10: 256 KB tiles cost 5% more,
// 1 or 2 MB about the same; the per-tile reloads of the weights and gradients are what small tiles
// pay for).
int tile_rows(int npad, int B) {
  const int rows = std::clamp((512 << 10) / (4 * std::max(npad, 1)), 4, 512);
  return std::min(rows, std::max(B, 1));
}

// W and a in the kernel's layout (zeros past n).
void pack(const MatrixRF& W, const VectorF& a, const Kernel& k, float* Wp, float* ap, int nblocks) {
  const int n = static_cast<int>(W.rows()), d = static_cast<int>(W.cols()), VL = k.block;
  for (int nb = 0; nb < nblocks; ++nb) {
    for (int j = 0; j < VL; ++j) {
      const int i = nb * VL + j;
      ap[nb * VL + j] = i < n ? a[i] : 0.0f;
      for (int c = 0; c < d; ++c) Wp[(static_cast<std::ptrdiff_t>(nb) * d + c) * VL + j] = i < n ? W(i, c) : 0.0f;
    }
  }
}

// One Adam update of `size` parameters, PyTorch's formulation (step = lr sqrt(c2) / c1, eps_hat =
// eps sqrt(c2)), L lanes at a time.
template <int L>
void adam_update(float* __restrict theta, const float* __restrict g, float* __restrict m, float* __restrict v,
                 std::ptrdiff_t size, float beta1, float beta2, float step, float eps_hat) {
  const float one_b1 = 1 - beta1, one_b2 = 1 - beta2;
  std::ptrdiff_t k = 0;
  if constexpr (L > 1) {
    const Vec<L> b1 = splat<L>(beta1), c1 = splat<L>(one_b1), b2 = splat<L>(beta2), c2 = splat<L>(one_b2),
                 st = splat<L>(step), eh = splat<L>(eps_hat);
    for (; k + L <= size; k += L) {
      const Vec<L> gk = load<L>(g + k);
      const Vec<L> mk = b1 * load<L>(m + k) + c1 * gk;
      const Vec<L> vk = b2 * load<L>(v + k) + c2 * gk * gk;
      store<L>(m + k, mk);
      store<L>(v + k, vk);
      store<L>(theta + k, load<L>(theta + k) - st * mk / (simd::sqrt<float, L>(vk) + eh));
    }
  }
  for (; k < size; ++k) {
    m[k] = beta1 * m[k] + one_b1 * g[k];
    v[k] = beta2 * v[k] + one_b2 * g[k] * g[k];
    theta[k] -= step * m[k] / (std::sqrt(v[k]) + eps_hat);
  }
}

// log(1 + e^f) - y f and sigmoid(f), stable for large |f|, from one exponential.
double logistic(double f, double y, double& sigmoid) {
  const double e = std::exp(-std::fabs(f));
  sigmoid = f >= 0 ? 1 / (1 + e) : e / (1 + e);
  return std::max(f, 0.0) + std::log1p(e) - y * f;
}

}  // namespace

namespace detail {
void set_relu_kernel_lanes(int lanes) {
  if (lanes != 0 && lanes != 1 && lanes != 4 && lanes != 8 && lanes != 16)
    throw std::invalid_argument("relu kernel lanes: 0, 1, 4, 8 or 16");
  if (lanes > kWidest) throw std::invalid_argument("relu kernel lanes: wider than this build vectorises");
  chosen_lanes.store(lanes, std::memory_order_relaxed);
}
int relu_kernel_lanes() {
  const int l = chosen_lanes.load(std::memory_order_relaxed);
  return l == 0 ? kWidest : l;
}
}  // namespace detail

double ReluNetwork::forward_backward(const MatrixRF& X, const VectorF& y) {
  const int B = static_cast<int>(X.rows()), n = static_cast<int>(W.rows()), d = static_cast<int>(W.cols());
  if (X.cols() != W.cols() || y.size() != X.rows()) throw std::invalid_argument("ReluNetwork: shapes of X, y and W disagree");
  const Kernel k = kernel_for_lanes(d);
  const int nblocks = (n + k.block - 1) / k.block, npad = nblocks * k.block, rows = tile_rows(npad, B);
  const std::size_t packed = static_cast<std::size_t>(npad) * static_cast<std::size_t>(d);
  float* Wp = aligned(Wp_, packed);
  float* ap = aligned(ap_, static_cast<std::size_t>(npad));
  float* gWp = aligned(gWp_, packed);
  float* gap = aligned(gap_, static_cast<std::size_t>(npad));
  float* Ht = aligned(Ht_, static_cast<std::size_t>(rows) * static_cast<std::size_t>(npad));
  float* facc = aligned(facc_, static_cast<std::size_t>(rows) * static_cast<std::size_t>(k.lanes));
  pack(W, a, k, Wp, ap, nblocks);
  std::fill(gWp, gWp + packed, 0.0f);
  std::fill(gap, gap + npad, 0.0f);
  f_.resize(B);
  delta_.resize(B);
  double loss = 0;
  for (int r0 = 0; r0 < B; r0 += rows) {
    const Shape s{d, std::min(rows, B - r0), nblocks};
    const float* x = X.data() + static_cast<std::ptrdiff_t>(r0) * d;
    std::fill(facc, facc + s.rows * k.lanes, 0.0f);
    k.run_pass1(Wp, ap, x, s, Ht, facc);
    for (int r = 0; r < s.rows; ++r) {
      const float fb = k.sum(facc + r * k.lanes);
      double sigmoid;
      f_[r0 + r] = fb;
      loss += logistic(fb, y[r0 + r], sigmoid);
      delta_[r0 + r] = static_cast<float>((sigmoid - y[r0 + r]) / static_cast<double>(B));
    }
    k.run_pass2(Ht, x, delta_.data() + r0, s, gWp, gap);
  }
  // Back to W's layout, with the factor a_i of grad_W.
  gW_.resize(n, d);
  ga_.resize(n);
  for (int i = 0; i < n; ++i) {
    const int nb = i / k.block, j = i % k.block;
    ga_[i] = gap[i];
    for (int c = 0; c < d; ++c) gW_(i, c) = a[i] * gWp[(static_cast<std::ptrdiff_t>(nb) * d + c) * k.block + j];
  }
  return loss / static_cast<double>(B);
}

double ReluNetwork::loss_and_gradient(const MatrixRF& X, const VectorF& y, MatrixRF& grad_W, VectorF& grad_a) {
  const double loss = forward_backward(X, y);
  grad_W = gW_;
  grad_a = ga_;
  return loss;
}

double ReluNetwork::train_step(const MatrixRF& X, const VectorF& y, const NetworkOptimizer& opt) {
  const double loss = forward_backward(X, y);
  ++t_;
  if (!opt.adam) {
    W.noalias() -= opt.lr * gW_;
    a.noalias() -= opt.lr * ga_;
    return loss;
  }
  if (mW_.size() == 0) {
    mW_.setZero(W.rows(), W.cols());
    vW_.setZero(W.rows(), W.cols());
    ma_.setZero(a.size());
    va_.setZero(a.size());
  }
  const float c1 = 1 - std::pow(opt.beta1, static_cast<float>(t_)), c2 = 1 - std::pow(opt.beta2, static_cast<float>(t_));
  const float step = opt.lr * std::sqrt(c2) / c1;  // PyTorch's formulation, eps added to sqrt(v)/sqrt(c2)
  const float eps_hat = opt.eps * std::sqrt(c2);
  adam_update<kWidest>(W.data(), gW_.data(), mW_.data(), vW_.data(), W.size(), opt.beta1, opt.beta2, step, eps_hat);
  adam_update<kWidest>(a.data(), ga_.data(), ma_.data(), va_.data(), a.size(), opt.beta1, opt.beta2, step, eps_hat);
  return loss;
}

VectorF ReluNetwork::predict(const MatrixRF& X) const {
  // Pass 1 of the step over tiles of rows (the same sums as the step's f): memory for one tile of
  // H, not for all of it.
  const int B = static_cast<int>(X.rows()), n = static_cast<int>(W.rows()), d = static_cast<int>(W.cols());
  if (X.cols() != W.cols()) throw std::invalid_argument("ReluNetwork::predict: X has the wrong number of columns");
  const Kernel k = kernel_for_lanes(d);
  const int nblocks = (n + k.block - 1) / k.block, npad = nblocks * k.block, rows = tile_rows(npad, B);
  std::vector<float> Wp_v, ap_v, Ht_v, facc_v;
  float* Wp = aligned(Wp_v, static_cast<std::size_t>(npad) * static_cast<std::size_t>(d));
  float* ap = aligned(ap_v, static_cast<std::size_t>(npad));
  float* Ht = aligned(Ht_v, static_cast<std::size_t>(rows) * static_cast<std::size_t>(npad));
  float* facc = aligned(facc_v, static_cast<std::size_t>(rows) * static_cast<std::size_t>(k.lanes));
  pack(W, a, k, Wp, ap, nblocks);
  VectorF f(B);
  for (int r0 = 0; r0 < B; r0 += rows) {
    const Shape s{d, std::min(rows, B - r0), nblocks};
    std::fill(facc, facc + s.rows * k.lanes, 0.0f);
    k.run_pass1(Wp, ap, X.data() + static_cast<std::ptrdiff_t>(r0) * d, s, Ht, facc);
    for (int r = 0; r < s.rows; ++r) f[r0 + r] = k.sum(facc + r * k.lanes);
  }
  return f;
}

}  // namespace scalinglab::teacher
