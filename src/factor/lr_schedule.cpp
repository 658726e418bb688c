#include "scalinglab/factor/lr_schedule.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace scalinglab::factor {

Schedule parse_schedule(const std::string& name) {
  if (name == "constant") return Schedule::constant;
  if (name == "cosine") return Schedule::cosine;
  if (name == "custom") return Schedule::custom;
  if (name == "custom_log") return Schedule::custom_log;
  throw std::invalid_argument("unknown schedule '" + name + "' (constant, cosine, custom or custom_log)");
}

double learning_rate(Schedule s, double eta, double t, double T) {
  const double lambda = (std::cos(std::numbers::pi * t / T) + 1) / 2;
  switch (s) {
    case Schedule::constant: return eta;
    case Schedule::cosine: return lambda * eta;
    case Schedule::custom: return std::exp(lambda * std::log(eta) + (1 - lambda) * std::log(kCustomFloor));
    case Schedule::custom_log: {
      const double log_lambda = T > 1 ? (std::cos(std::numbers::pi * std::log(t + 1) / std::log(T)) + 1) / 2 : 1.0;
      return std::exp(log_lambda * std::log(eta) + (1 - log_lambda) * std::log(kCustomFloor));
    }
  }
  return eta;
}

}  // namespace scalinglab::factor
