#pragma once
// The three training settings of Arnal et al. (2024), Sections 4.2-4.4:
//   single_pass     every step draws a fresh batch of i.i.d. (x, y) ~ p; test loss = population KL
//   compression     one full-batch step per epoch on the population loss with the exact p(y|x)
//   generalization  a fraction gamma of the inputs is observed (full batch, exact p(y|x)); the test
//                   loss is the KL averaged over the unobserved inputs
// One epoch is one optimizer step. The loss is the excess cross-entropy KL(p(.|x) || p^(.|x))
// averaged over the inputs concerned (uniform p(x)). FLOPs follow the paper's Supplement: per sample,
// forward 6 L d h + 2 d M, backward twice that.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scalinglab/core/random.hpp"
#include "scalinglab/factor/factor_task.hpp"
#include "scalinglab/factor/gated_mlp.hpp"
#include "scalinglab/factor/lr_schedule.hpp"

namespace scalinglab {
class TaskCheckpoint;
}

namespace scalinglab::factor {

enum class Setting { single_pass, compression, generalization };
Setting parse_setting(const std::string& name);  // throws std::invalid_argument

struct TrainSpec {
  Setting setting = Setting::compression;
  std::size_t d = 64, h = 128, L = 1;
  Gate gate = Gate::silu;
  bool factorized_embedding = false;  // frozen embedding (4) instead of a learned one
  double lr = 3e-2;
  Schedule schedule = Schedule::cosine;
  std::size_t epochs = 1000;
  std::size_t batch = 8192;  // single pass only
  double gamma = 0.9;        // generalization only: observed fraction of the inputs
  std::size_t evals = 30;    // log-spaced evaluation epochs (plus epoch 0)
  std::vector<std::size_t> extra_evals;  // further evaluation epochs (<= epochs), e.g. T/10
  int threads = 0;           // inside the run; the result does not depend on it
  std::function<void()> on_epoch;  // called after every optimizer step (progress reports)
  TaskCheckpoint* checkpoint = nullptr;  // saves and restores the whole state (lab/checkpoint.hpp)
};

// Forward + backward FLOPs per training sample (the paper's count).
double flops_per_sample(std::size_t d, std::size_t h, std::size_t L, std::size_t M);
// Training samples per epoch: the batch (single pass), N (compression) or the round(gamma N)
// observed inputs (generalization).
std::size_t samples_per_epoch(const TrainSpec& spec, std::size_t N);

struct TrainResult {
  std::vector<double> curve_epoch, curve_loss, curve_flops;  // test loss after curve_epoch epochs
  double loss = 0;         // final test loss (KL)
  double train_loss = 0;   // final loss on the training inputs (KL; single pass: population)
  double flops = 0;        // compute spent: epochs x samples per epoch x flops_per_sample
  double samples_per_epoch = 0;
  std::size_t observed = 0;  // inputs seen in training (generalization) or N
  bool diverged = false;
};

// `stream` gives the training randomness (initialisation, frozen factor embeddings, batches); the
// observed inputs of the generalization setting are a uniform subset drawn from `split` when given
// (part of the world: the measure passes a stream that does not depend on the training
// parameters), else from a substream of `stream`. The subset is the first round(gamma N) entries
// of one uniform permutation, so subsets for different gamma drawn from the same `split` are nested.
TrainResult train(const FactorTask& task, const TrainSpec& spec, Stream& stream, const Stream* split = nullptr);

// The observed inputs (sorted) and the unobserved ones (sorted): the first `seen` entries of a
// uniform permutation of [0, N) drawn from `s`.
void split_inputs(std::size_t N, std::size_t seen, Stream s, std::vector<uint32_t>& observed,
                  std::vector<uint32_t>& unobserved);

// The evaluation epochs: 0 and about `count` log-spaced epochs in [1, T], T included.
std::vector<std::size_t> evaluation_epochs(std::size_t T, std::size_t count);

}  // namespace scalinglab::factor
