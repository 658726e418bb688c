#pragma once
// Learning-rate schedules of Arnal et al. (2024), Section 4.1 and Supplement eq. (7), stepped at
// every optimizer step t = 0, ..., T-1 with lambda_t = (cos(pi t / T) + 1) / 2:
//   constant  eta_t = eta
//   cosine    eta_t = lambda_t eta                                (PyTorch's CosineAnnealingLR, eta_min 0)
//   custom    log eta_t = lambda_t log eta + (1 - lambda_t) log 3e-4   (eq. 7: ends at 3e-4, not 0)
//   custom_log  the same interpolation with the cosine in log time, as the authors' code
//             (facebookresearch/pal, the factorization project's scheduler) computes it:
//             lambda_t = (cos(pi log(t + 1) / log T) + 1) / 2. The learning rate leaves eta after
//             the first step and is already 10x lower at t ~ sqrt(T) (eq. 7 keeps it near eta for
//             the first half of the run). The authors' code fixes T = 1e6 whatever the run's
//             length; here T is the run's number of epochs.
#include <string>

namespace scalinglab::factor {

enum class Schedule { constant, cosine, custom, custom_log };
Schedule parse_schedule(const std::string& name);  // throws std::invalid_argument

constexpr double kCustomFloor = 3e-4;
double learning_rate(Schedule s, double eta, double t, double T);

}  // namespace scalinglab::factor
