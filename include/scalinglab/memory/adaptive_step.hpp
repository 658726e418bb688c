#pragma once
// One Adam or signSGD step of the memories with a learned W (matrix, learnable; with or without
// layer norm) in two passes over W, W's d x d gradient never formed:
//   1. the batch's features H = X W^T (X = E[batch], k x d; k distinct inputs);
//   2. after the head, W a block of rows at a time: E's gradient dH W takes the block's share
//      (with W before the step), then the block's gradient dH^T X is formed in cache and the
//      optimizer updates those rows (and their moments).
// E moves only in the rows the batch touches when the optimizer keeps no moments (betas 0) and
// eps > 0: every other row has a zero gradient, whose update g / (|g| + eps) is exactly 0. With
// moments every row moves (m and v decay), so E is updated whole, as Optimizer::step does.
// Equal to loss_and_gradient followed by Optimizer::step up to the rounding of the sums (tested).
#include <vector>

#include "scalinglab/memory/associative_model.hpp"
#include "scalinglab/memory/optimizer.hpp"

namespace scalinglab::memory {

// Whether adaptive_step applies: an adam or signsgd optimizer and a model that learns W.
bool adaptive_step_applies(const ModelSpec& model, const OptimizerSpec& opt);

// The step in place on `p` (the optimizer's moments advance); returns the batch's loss before it.
double adaptive_step(const ModelSpec& spec, ModelParams& p, Optimizer& opt, const std::vector<uint32_t>& xs,
                     const std::vector<uint32_t>& ys, const std::vector<double>& weights, double lr_factor);

}  // namespace scalinglab::memory
