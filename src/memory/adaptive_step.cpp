#include "scalinglab/memory/adaptive_step.hpp"

#include <algorithm>

#include "scalinglab/core/simd.hpp"

namespace scalinglab::memory {

namespace {

using simd::Simd;
using Idx = Eigen::Index;
constexpr int kL = simd::kLanes<double>;

// Rows of W per block in both passes: each load of X, and of E's gradient, serves kRows rows; the
// block's gradient rows (kRows x d) stay in cache between being formed and being applied.
// (Walking W by tiles of columns, so that X and E's gradient stay in L1, measured no faster.)
constexpr int kRows = 4;

// Per-thread step buffers (training steps one batch at a time: no allocation in steady state).
struct Buffers {
  MatrixRD X, H, dH, dHt, dE, G, gU, gE;
};

Buffers& buffers() {
  thread_local Buffers b;
  return b;
}

// sum_c W(r0 + q, c) X(j0 + i, c) over columns [c0, c1), L lanes at a time, for q < R, i < J: R J
// independent sums, each load of W serving J inputs. Returned lane-wise in s.
template <int L, int R, int J>
void forward_columns(const double* __restrict W, const double* __restrict X, Idx d, Idx r0, Idx j0, Idx c0, Idx c1,
                     Simd<double, L> (&s)[R][J]) {
  for (int q = 0; q < R; ++q)
    for (int i = 0; i < J; ++i) s[q][i] = Simd<double, L>{};
  for (Idx c = c0; c + L <= c1; c += L) {
    Simd<double, L> x[J];
    for (int i = 0; i < J; ++i) x[i] = simd::load<double, L>(X + (j0 + i) * d + c);
    for (int q = 0; q < R; ++q) {
      const auto w = simd::load<double, L>(W + (r0 + q) * d + c);
      for (int i = 0; i < J; ++i) s[q][i] += w * x[i];
    }
  }
}

// H(j, r) = W.row(r) . X.row(j), rows r0 .. r0 + R - 1, inputs j0 .. j0 + J - 1: lane sums in
// lane order, then the scalar columns past the vector body.
template <int R, int J>
void forward_inputs(const MatrixRD& W, const MatrixRD& X, MatrixRD& H, Idx r0, Idx j0) {
  const Idx d = W.cols(), body = d / kL * kL;
  Simd<double, kL> s[R][J];
  double t[R][J];
  forward_columns<kL, R, J>(W.data(), X.data(), d, r0, j0, 0, body, s);
  forward_columns<1, R, J>(W.data(), X.data(), d, r0, j0, body, d, t);
  for (int q = 0; q < R; ++q)
    for (int i = 0; i < J; ++i) H(j0 + i, r0 + q) = simd::lane_sum<double, kL>(s[q][i]) + t[q][i];
}

// Pass 1 on rows r0 .. r0 + R - 1 of W: two inputs at a time (2 R independent sums).
template <int R>
void forward_rows(const MatrixRD& W, const MatrixRD& X, MatrixRD& H, Idx r0) {
  const Idx k = X.rows();
  Idx j = 0;
  for (; j + 2 <= k; j += 2) forward_inputs<R, 2>(W, X, H, r0, j);
  for (; j < k; ++j) forward_inputs<R, 1>(W, X, H, r0, j);
}

// Over columns [c0, c1), L lanes at a time, rows r0 .. r0 + R - 1 of W: dE += dH[:, rows] W[rows, :]
// and G (R x d) = dH[:, rows]^T X. a[q k + j] = dH(j, r0 + q).
template <int L, int R>
void backward_columns(const double* __restrict W, const double* __restrict X, const double* __restrict a, Idx d, Idx k,
                      Idx r0, Idx c0, Idx c1, double* __restrict dE, double* __restrict G) {
  for (Idx c = c0; c + L <= c1; c += L) {
    Simd<double, L> w[R], g[R];
    for (int q = 0; q < R; ++q) w[q] = simd::load<double, L>(W + (r0 + q) * d + c), g[q] = Simd<double, L>{};
    for (Idx j = 0; j < k; ++j) {
      const auto x = simd::load<double, L>(X + j * d + c);
      auto e = simd::load<double, L>(dE + j * d + c);
      for (int q = 0; q < R; ++q) {
        const auto aj = simd::splat<double, L>(a[q * k + j]);
        g[q] += aj * x;
        e += aj * w[q];
      }
      simd::store<double, L>(dE + j * d + c, e);
    }
    for (int q = 0; q < R; ++q) simd::store<double, L>(G + q * d + c, g[q]);
  }
}

// Rows r0 .. r0 + R - 1 of W: their share of dE, their gradient, their update.
template <int R>
void backward_rows(MatrixRD& W, const MatrixRD& X, const MatrixRD& dHt, Idx r0, MatrixRD& dE, MatrixRD& G,
                   Optimizer& opt, double lr_factor) {
  const Idx d = W.cols(), k = X.rows(), body = d / kL * kL;
  const double* a = dHt.data() + r0 * k;  // dHt is dH^T: rows r0 .. r0 + R - 1 are contiguous
  backward_columns<kL, R>(W.data(), X.data(), a, d, k, r0, 0, body, dE.data(), G.data());
  backward_columns<1, R>(W.data(), X.data(), a, d, k, r0, body, d, dE.data(), G.data());
  opt.update_rows(Optimizer::Tensor::W, W, r0, R, G.data(), lr_factor);
}

}  // namespace

bool adaptive_step_applies(const ModelSpec& model, const OptimizerSpec& opt) {
  return opt.adaptive() && model.learns_W();
}

double adaptive_step(const ModelSpec& spec, ModelParams& p, Optimizer& opt, const std::vector<uint32_t>& xs,
                     const std::vector<uint32_t>& ys, const std::vector<double>& weights, double lr_factor) {
  Buffers& b = buffers();
  const auto k = static_cast<Idx>(xs.size());
  const Idx d = p.W.rows(), n = p.E.rows();
  b.X.resize(k, p.E.cols());
  for (Idx i = 0; i < k; ++i) b.X.row(i) = p.E.row(xs[static_cast<std::size_t>(i)]);
  b.H.resize(k, d);
  Idx r = 0;
  for (; r + kRows <= d; r += kRows) forward_rows<kRows>(p.W, b.X, b.H, r);
  for (; r < d; ++r) forward_rows<1>(p.W, b.X, b.H, r);
  const double loss = head_step(spec, p.U, b.H, ys, weights, b.dH, spec.learns_U() ? &b.gU : nullptr);

  opt.begin_step();
  b.dHt = b.dH.transpose();
  b.dE.setZero(k, d);
  b.G.resize(kRows, d);
  for (r = 0; r + kRows <= d; r += kRows) backward_rows<kRows>(p.W, b.X, b.dHt, r, b.dE, b.G, opt, lr_factor);
  for (; r < d; ++r) backward_rows<1>(p.W, b.X, b.dHt, r, b.dE, b.G, opt, lr_factor);
  if (spec.learns_E()) {
    if (!opt.keeps_moments() && opt.spec().eps > 0) {
      for (Idx i = 0; i < k; ++i)
        opt.update_rows(Optimizer::Tensor::E, p.E, xs[static_cast<std::size_t>(i)], 1, b.dE.row(i).data(), lr_factor);
    } else {
      b.gE.setZero(n, p.E.cols());
      for (Idx i = 0; i < k; ++i) b.gE.row(xs[static_cast<std::size_t>(i)]) += b.dE.row(i);
      opt.update_rows(Optimizer::Tensor::E, p.E, 0, n, b.gE.data(), lr_factor);
    }
  }
  if (spec.learns_U()) opt.update_rows(Optimizer::Tensor::U, p.U, 0, p.U.rows(), b.gU.data(), lr_factor);
  return loss;
}

}  // namespace scalinglab::memory
