#pragma once
// A world as the scaling-law protocol sees it: a sweep file (measure, runs, seed, [params]) whose
// [extrapolate] table names the model-size knob, the data knob, N and D as formulas of them, and the
// loss. Planned IsoFLOP runs (knob values at a budget C = 6 N D) become ordinary sweeps, run and
// read back. Shared by `scalinglab extrapolate` (one protocol) and its benchmark (many).
#include <map>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "scalinglab/core/expression.hpp"
#include "scalinglab/fit/envelope.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab::extrapolate::protocol {

struct Spec {
  std::string size, data, N, D, loss;
  std::vector<double> budgets, sizes;
  double target = 0;
  // Read as a number and checked whole before it is used: a cast to int wrapped 3e9 round to no run.
  double target_sizes = 9;
  double target_spread = 4;
  // Learning curves (Approach 1): the series of the loss, and the series giving either the data
  // knob's value or the compute spent at each of its points (empty: the world emits none).
  std::string curve_loss, curve_data, curve_compute;
  bool has_curves() const { return !curve_loss.empty(); }
};

// A number, a list of numbers or a "logspace(a, b, n)" / "linspace(a, b, n)" string (the n checked
// against --max-points before the values are made).
std::vector<double> numbers_or_range(const toml::node* n, const std::string& key);
double number(const toml::node& n, const std::string& key);

// Reads the [extrapolate] keys (an unknown key is an error naming the known ones).
void read_spec(const toml::table& t, Spec& s);
// The numbers of the single protocol (budgets, sizes, target...) checked as a whole.
void check_spec(const Spec& s, const std::string& path);
// The numeric entries of [params] (the variables N and D may use).
std::map<std::string, double> fixed_numbers(const toml::table& doc);

// One planned run: the knobs and the budget it belongs to.
struct Planned {
  double size, data, budget;
};

// N and D as functions of the knobs; D must be proportional to the data knob.
class Model {
 public:
  Model(const Spec& s, const std::map<std::string, double>& fixed);
  double N(double size) const { return eval(N_, size, 1.0); }
  double D(double size, double data) const { return eval(D_, size, data); }
  double data_for(double size, double budget) const { return budget / (6 * N(size)) / D(size, 1.0); }
  // The size knob giving N parameters (bisection in log; N increases with the knob).
  double size_for_N(double N) const;

 private:
  double eval(const Expression& e, double size, double data) const;
  Spec spec_;
  std::map<std::string, double> fixed_;
  Expression N_, D_;
};

// The runs of one sweep, read back: one row per grid point (the mean over its runs).
struct Sweeped {
  std::vector<double> N, D, C, loss, size;
  std::vector<double> sem;     // the loss's standard error over the point's runs (0 with one run)
  std::vector<double> budget;  // the budget each run was planned for (rounding moves its own C)
  fit::Curves curves;          // every run's learning curve (Spec::curve_loss), one id per run
};

// One sweep of the protocol, planned: the knobs rounded as the measure will, duplicates and points
// outside the knobs' ranges dropped, the sweep parsed (which checks it as `run` does).
struct Part {
  Sweep sweep;
  std::vector<Planned> kept;
};

struct PartOptions {
  std::string profile;
  int threads = 0;
  bool resume = false;
  bool quiet = false;
};

Part plan_part(const toml::table& doc, const Spec& spec, std::vector<Planned> plan, const std::string& name,
               const PartOptions& o, const Measure& m);
Sweeped run_part(const Part& part, const Spec& spec, const Model& model, const std::string& dir, const PartOptions& o);

}  // namespace scalinglab::extrapolate::protocol
