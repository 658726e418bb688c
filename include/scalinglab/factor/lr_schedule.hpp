#pragma once
// Learning-rate schedules of Arnal et al. (2024), Section 4.1 and Supplement eq. (7), stepped at
// every optimizer step t = 0, ..., T-1 with lambda_t = (cos(pi t / T) + 1) / 2:
//   constant  eta_t = eta
//   cosine    eta_t = lambda_t eta                                (PyTorch's CosineAnnealingLR, eta_min 0)
//   custom    log eta_t = lambda_t log eta + (1 - lambda_t) log 3e-4   (eq. 7: ends at 3e-4, not 0)
#include <string>

namespace scalinglab::factor {

enum class Schedule { constant, cosine, custom };
Schedule parse_schedule(const std::string& name);  // throws std::invalid_argument

constexpr double kCustomFloor = 3e-4;
double learning_rate(Schedule s, double eta, double t, double T);

}  // namespace scalinglab::factor
