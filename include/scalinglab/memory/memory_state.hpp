#pragma once
// How a trained memory is stored and stepped. Three exact alternatives, chosen by train_memory:
//   dense     the parameters W, E, U and an optimizer: any model and optimizer; O(k d^2) per step
//             for k distinct inputs in the batch.
//   span      matrix model, plain SGD, no layer norm: W_t - W_0 = U^T A E stays in span{u_z e_x^T},
//             so the logits of every input are U W_0 E^T + (U U^T) A (E E^T); the state is
//             P = A (E E^T) (M x N), a step costs O(k M N) and W is never formed.
//   features  matrix model, plain SGD (with or without layer norm): W only acts through the
//             features H = E W^T (N x d), and a step W -= lr dH^T X moves them by
//             -lr (E E^T)[:, batch] dH: O(N k d) per step instead of O(k d^2), W never formed.
// Batches arrive compacted: each distinct input once with its summed weight.
#include <memory>
#include <vector>

#include "scalinglab/memory/associative_model.hpp"
#include "scalinglab/memory/optimizer.hpp"

namespace scalinglab::memory {

enum class StatePath { dense, span, features };
const char* path_name(StatePath p);

class MemoryState {
 public:
  virtual ~MemoryState() = default;
  // One optimizer step on the batch (inputs, labels, weights summing to 1) at step t with the
  // schedule's learning-rate factor.
  virtual void step(const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys, const std::vector<double>& w,
                    double lr_factor) = 0;
  virtual MatrixRD logits() const = 0;    // M x N: column x holds the logits of input x
  virtual MatrixRD features() const = 0;  // N x d: row x is n(W e_x) (relu: n(ReLU(e_x)))
  // The parameters as they are now (span and features: W is not tracked and stays W_0).
  virtual const ModelParams& params() const = 0;
};

// The state for `path`, starting from `init` (which it copies). fused_adaptive: the dense state
// takes Adam and signSGD steps with adaptive_step (else by their definition).
std::unique_ptr<MemoryState> make_memory_state(StatePath path, const ModelSpec& model, const OptimizerSpec& opt,
                                               const ModelParams& init, bool fused_adaptive = true);

}  // namespace scalinglab::memory
