#include "scalinglab/factor/lr_schedule.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace scalinglab::factor {

Schedule parse_schedule(const std::string& name) {
  if (name == "constant") return Schedule::constant;
  if (name == "cosine") return Schedule::cosine;
  if (name == "custom") return Schedule::custom;
  throw std::invalid_argument("unknown schedule '" + name + "' (constant, cosine or custom)");
}

double learning_rate(Schedule s, double eta, double t, double T) {
  const double lambda = (std::cos(std::numbers::pi * t / T) + 1) / 2;
  switch (s) {
    case Schedule::constant: return eta;
    case Schedule::cosine: return lambda * eta;
    case Schedule::custom: return std::exp(lambda * std::log(eta) + (1 - lambda) * std::log(kCustomFloor));
  }
  return eta;
}

}  // namespace scalinglab::factor
