#pragma once
// The truth at a target budget: an IsoFLOP slice of runs the methods never see, its minimum found by
// a parabola through the points around the lowest mean. The slice is extended while its minimum is
// at an edge, refined around the minimum (a V-shaped optimum is missed by a coarse parabola), given
// more runs until its own 95% interval on N_opt is within the stated precision (else the horizon is
// unidentified), and reached out to predictions that fall outside it so that every one is scored.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "benchmark_world.hpp"
#include "scalinglab/fit/isoflop.hpp"

namespace scalinglab::extrapolate {

constexpr int kMaxExtensions = 3;  // a truth slice is extended at most this often towards its minimum
constexpr int kMaxReach = 8;       // points added on each side to reach predictions outside the slice

struct TruthPoint {
  double N, loss, sem, runs;
};

struct Truth {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  double horizon = 0, C = 0, N = kNaN, D = kNaN, L = kNaN, N_lo = kNaN, N_hi = kNaN, L_lo = kNaN, L_hi = kNaN;
  std::vector<TruthPoint> points;  // by increasing N
  fit::IsoflopSlice parabola;      // fitted to the window around the minimum
  double window_lo = 0, window_hi = 0;  // log N range of that window
  bool interior = false;
  // The 95% interval on N_opt within +-precision: N_opt is identified at this horizon.
  bool identified = false;
  double max_runs = 0;  // the most runs a point of the slice got
  std::string note;
  std::vector<double> N_draws;  // N_opt of the slice redrawn within its standard errors
  // d log L_opt / d log C near C, from the truths of neighbouring horizons (NaN with one horizon).
  double frontier_slope = kNaN;
  // The world's loss at N: the window's parabola inside it, else the measured points interpolated
  // in log N; NaN outside the points.
  double loss_at(double N) const;
  // Half-width of the truth's interval on N_opt relative to N_opt (the larger side).
  double N_spread() const;
};

// Fits the slice's minimum, its interval from 400 redraws of the points within their standard
// errors, and whether it is identified at `precision`.
void fit_truth(Truth& t, std::uint64_t seed, double precision);

using Progress = std::function<void(const std::string&)>;

// Runs the truth at horizon index h (budget C), its slice centred at `centre` parameters.
Truth run_truth(const World& w, std::size_t h, double C, double centre, const std::string& out,
                const protocol::PartOptions& po, const Progress& progress);

// Adds points beyond the slice's ends, at its own spacing, towards the predictions outside it (at
// most kMaxReach a side); the truth's optimum is not refitted. Returns the points added.
std::size_t reach_predictions(Truth& t, const World& w, std::size_t h, const std::vector<double>& predicted_N,
                              const std::string& out, const protocol::PartOptions& po, const Progress& progress);

}  // namespace scalinglab::extrapolate
