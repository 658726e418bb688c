// Laws given as expressions: the forward-mode Jacobian against central finite differences, the
// built-in laws against their own expressions (same predictions, same Jacobians, same fit), known
// parameters recovered from synthetic data, bounds, and the warnings of a doubtful optimum.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/law_expression.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;
using Eigen::ArrayXd;
using Eigen::ArrayXXd;

namespace {

// n points with inputs log-uniform over [lo, hi] (one range per input) and the loss of `law` at
// `theta` (coordinates), times exp(noise * standard normal).
LawData synthetic(const ScalingLaw& law, const std::vector<double>& theta, int n,
                  const std::vector<std::pair<double, double>>& ranges, double noise, std::uint64_t seed) {
  Stream s(seed);
  std::map<std::string, std::vector<double>> columns;
  for (std::size_t k = 0; k < law.inputs.size(); ++k)
    for (int i = 0; i < n; ++i)
      columns[law.inputs[k]].push_back(ranges[k].first * std::pow(ranges[k].second / ranges[k].first, s.uniform()));
  std::vector<double> loss(static_cast<std::size_t>(n), 1.0);
  LawData d = law_data_from(law, columns, loss);
  ArrayXd lp;
  law.predict(d, theta.data(), lp, nullptr);
  for (int i = 0; i < n; ++i) d.log_y[i] = lp[i] + noise * s.normal();
  return d;
}

// Central differences of the log prediction, coordinate by coordinate.
ArrayXXd numeric_jacobian(const ScalingLaw& law, const LawData& d, std::vector<double> theta) {
  ArrayXXd J(d.size(), static_cast<Eigen::Index>(theta.size()));
  for (std::size_t k = 0; k < theta.size(); ++k) {
    const double h = 1e-6 * std::max(1.0, std::fabs(theta[k]));
    const double keep = theta[k];
    ArrayXd up, down;
    theta[k] = keep + h;
    law.predict(d, theta.data(), up, nullptr);
    theta[k] = keep - h;
    law.predict(d, theta.data(), down, nullptr);
    theta[k] = keep;
    J.col(static_cast<Eigen::Index>(k)) = (up - down) / (2 * h);
  }
  return J;
}

}  // namespace

TEST(LawExpression, JacobianMatchesFiniteDifferences) {
  struct Case {
    const char* text;
    const char* bounds;
    std::vector<double> theta;  // coordinates
  };
  const std::vector<Case> cases = {
      {"E + A/N^alpha + B/D^beta", "E=0:,A=0:,B=0:", {0.5, 6.0, 0.34, 7.0, 0.28}},
      {"((N_c/N)^(alpha_N/alpha_D) + D_c/D)^alpha_D", "N_c=0:,D_c=0:", {30.0, 0.076, 0.095, 22.0}},
      {"a + b*N^-c0*(1 + (N/d1)^(1/f1))^(-c1*f1)", "a=0:,b=0:,d1=0:,f1=0:", {-0.5, 3.0, 0.2, 18.0, -1.2, 0.4}},
      {"E + A/N^alpha + B/(min(U,D) + min(U,D)*R*(1 - exp(-(D/min(U,D) - 1)/R)))^beta", "E=0:,A=0:,B=0:,R=0:",
       {0.5, 6.0, 0.34, 7.0, std::log(15.0), 0.28}},
      // Every function with a derivative, a parameter as a base, in a denominator and under min/max.
      {"sqrt(k + log(N)) * exp(-q/10) + abs(q - 3) + max(N/1e9, s) + gamma(s + 1) + s^2/(1 + s) + log10(D)^q "
       "+ log2(N)*min(s, 0.5) + 2^(q/5)",
       "", {0.7, 1.3, 0.25}},
  };
  for (const auto& c : cases) {
    ExpressionLawOptions o;
    if (*c.bounds) o.bounds = parse_bounds(c.bounds);
    const ScalingLaw law = expression_law(c.text, {"N", "D", "U"}, o);
    ASSERT_EQ(law.dims(), c.theta.size()) << c.text;
    std::vector<std::pair<double, double>> ranges;
    for (const auto& in : law.inputs)
      ranges.push_back(in == "N" ? std::make_pair(1e7, 1e10) : in == "D" ? std::make_pair(1e9, 1e12) : std::make_pair(5e8, 5e10));
    const LawData d = synthetic(law, c.theta, 30, ranges, 0.0, 7);
    ArrayXd lp;
    ArrayXXd J;
    law.predict(d, c.theta.data(), lp, &J);
    const ArrayXXd Jn = numeric_jacobian(law, d, c.theta);
    ASSERT_TRUE(lp.allFinite()) << c.text;
    for (Eigen::Index k = 0; k < J.cols(); ++k)
      for (Eigen::Index i = 0; i < J.rows(); ++i)
        EXPECT_NEAR(J(i, k), Jn(i, k), 1e-6 * std::max(1.0, std::fabs(Jn(i, k)))) << c.text << " coordinate " << k;
  }
}

TEST(LawExpression, BuiltInLawsEqualTheirExpressions) {
  for (const std::string name : {"power", "saturating", "chinchilla", "kaplan"}) {
    const ScalingLaw& law = scaling_law(name);
    ASSERT_FALSE(law.expression.empty()) << name;
    ExpressionLawOptions o;
    for (std::size_t k = 0; k < law.coordinate_parameter.size(); ++k)
      if (law.coordinate_log[k]) o.bounds[law.coordinate_parameter[k]] = Bounds{0, std::numeric_limits<double>::infinity()};
    const ScalingLaw ex = expression_law(law.expression, law.inputs, o);
    // The same coordinates, in the same order, after reordering by name.
    ASSERT_EQ(ex.dims(), law.dims()) << name;
    std::vector<std::size_t> where;
    for (const auto& c : law.coordinates) {
      const auto it = std::find(ex.coordinates.begin(), ex.coordinates.end(),
                                c.rfind("log_", 0) == 0 ? "log_" + law.coordinate_parameter[where.size()] : c);
      ASSERT_NE(it, ex.coordinates.end()) << name << " " << c;
      where.push_back(static_cast<std::size_t>(it - ex.coordinates.begin()));
    }
    Stream s(11);
    std::vector<std::pair<double, double>> ranges(law.inputs.size(), {1e6, 1e11});
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<double> theta;
      for (std::size_t k = 0; k < law.dims(); ++k)
        theta.push_back(law.coordinate_log[k] ? 10 * s.uniform() - 1 : 0.05 + 0.6 * s.uniform());
      std::vector<double> ex_theta(law.dims());
      for (std::size_t k = 0; k < law.dims(); ++k) ex_theta[where[k]] = theta[k];
      const LawData d = synthetic(ex, ex_theta, 40, ranges, 0.0, 100 + trial);
      ArrayXd lp1, lp2;
      ArrayXXd J1, J2;
      law.predict(d, theta.data(), lp1, &J1);
      ex.predict(d, ex_theta.data(), lp2, &J2);
      for (Eigen::Index i = 0; i < d.size(); ++i) {
        EXPECT_NEAR(lp1[i], lp2[i], 1e-12 * std::max(1.0, std::fabs(lp1[i]))) << name;
        for (std::size_t k = 0; k < law.dims(); ++k)
          EXPECT_NEAR(J1(i, static_cast<Eigen::Index>(k)), J2(i, static_cast<Eigen::Index>(where[k])),
                      1e-10 * std::max(1.0, std::fabs(J1(i, static_cast<Eigen::Index>(k)))))
              << name << " " << law.coordinates[k];
      }
    }
  }
}

TEST(LawExpression, CustomChinchillaFitEqualsTheBuiltInOnTheShippedData) {
  const DataTable table = read_csv(std::string(SCALINGLAB_SOURCE_DIR) + "/examples/data/chinchilla-figure4-epoch-extraction.csv");
  ColumnChoice c;
  c.N = "Model Size";
  c.C = "Training FLOP";
  c.loss = "loss";
  c.drop_top = 5;
  const FitColumns cols = choose_columns(table, c, false);
  const ScalingLaw& builtin = scaling_law("chinchilla");
  const LawFit reference = fit_law(builtin, make_law_data(builtin, cols.N, cols.D, cols.loss, cols.lines));

  ExpressionLawOptions o;
  o.bounds = parse_bounds("E=0:,A=0:,B=0:");
  const ScalingLaw law = expression_law("E + A/N^alpha + B/D^beta", {"N", "D"}, o);
  FitOptions fo;
  fo.delta = 1e-3;
  for (const char* g : {"log(E)=-1:0.5:1", "log(A)=0:5:25", "log(B)=0:5:25", "alpha=0:0.5:2", "beta=0:0.5:2"})
    fo.grid.insert(parse_grid_option(g));
  const LawData d = law_data_from(law, {{"N", cols.N}, {"D", cols.D}}, cols.loss, cols.lines);
  const LawFit f = fit_law(law, d, fo);
  EXPECT_EQ(f.starts, 4500u);
  EXPECT_NEAR(f.objective, reference.objective, 1e-9 * reference.objective);
  for (const char* p : {"E", "A", "B", "alpha", "beta"}) EXPECT_NEAR(f.value(p), reference.value(p), 1e-5 * std::fabs(reference.value(p))) << p;
}

TEST(LawExpression, NamedLawsRecoverKnownParameters) {
  struct Case {
    const char* law;
    std::map<std::string, double> truth;
    std::vector<std::pair<double, double>> ranges;
    std::vector<std::string> grid;  // smaller than the default, away from the truth
  };
  const std::vector<Case> cases = {
      {"porian", {{"E", 1.7}, {"A", 300.0}, {"gamma", 0.12}}, {{1e17, 1e23}}, {}},
      {"muennighoff",
       {{"E", 1.9}, {"A", 400.0}, {"B", 1500.0}, {"alpha", 0.35}, {"beta", 0.37}, {"R_D", 15.4}},
       {{1e7, 1e10}, {1e9, 1e12}, {1e8, 1e11}},
       {"log(E)=0,1", "log(A)=3,7", "log(B)=5,9", "alpha=0.2,0.5", "beta=0.2,0.5", "R_D=5,40"}},
      {"bnsl", {{"a", 0.05}, {"b", 4.0}, {"c0", 0.1}, {"c1", 0.6}, {"d1", 1e6}, {"f1", 0.5}}, {{1e2, 1e10}},
       {"log(a)=-3,-1", "log(b)=0,2", "c0=0,0.5", "c1=0.3,1", "log(d1)=8,17", "log(f1)=-2,0"}},
  };
  for (const auto& c : cases) {
    const ScalingLaw& law = scaling_law(c.law);
    std::vector<double> theta;
    for (std::size_t k = 0; k < law.dims(); ++k) {
      const double v = c.truth.at(law.coordinate_parameter[k]);
      theta.push_back(law.coordinate_log[k] ? std::log(v) : v);
    }
    const LawData d = synthetic(law, theta, 100, c.ranges, 0.0, 21);
    FitOptions fo;
    for (const auto& g : c.grid) fo.grid.insert(parse_grid_option(g));
    const LawFit f = fit_law(law, d, fo);
    EXPECT_LT(f.objective, 1e-16) << c.law;
    for (const auto& [name, v] : c.truth) EXPECT_NEAR(f.value(name), v, 1e-4 * std::fabs(v)) << c.law << " " << name;
  }
}

TEST(LawExpression, BoundsAreEnforcedAndAnOptimumOnABoundIsReported) {
  ExpressionLawOptions o;
  o.bounds = parse_bounds("E=0:,A=0:,alpha=0:0.3");
  const ScalingLaw law = expression_law("E + A*x^-alpha", {"x"}, o);
  const LawData d = synthetic(law, {std::log(2.0), std::log(50.0), 0.6}, 60, {{1e2, 1e8}}, 0.0, 5);
  FitOptions fo;
  fo.bounds = o.bounds;
  const LawFit f = fit_law(law, d, fo);
  EXPECT_NEAR(f.value("alpha"), 0.3, 1e-9);
  bool reported = false;
  for (const auto& w : f.warnings) reported = reported || w.find("alpha ended on its bound") != std::string::npos;
  EXPECT_TRUE(reported);
  // Without the bound the truth is found and nothing is reported.
  ExpressionLawOptions free;
  free.bounds = parse_bounds("E=0:,A=0:");
  const ScalingLaw open = expression_law("E + A*x^-alpha", {"x"}, free);
  LawData d2 = d;
  open.prepare(d2);
  const LawFit g = fit_law(open, d2);
  EXPECT_NEAR(g.value("alpha"), 0.6, 1e-6);
  EXPECT_TRUE(g.warnings.empty()) << g.warnings.front();
}

TEST(LawExpression, AnUnidentifiableLawIsReported) {
  // A and B multiply: only their product is determined.
  ExpressionLawOptions o;
  o.bounds = parse_bounds("A=0:,B=0:");
  const ScalingLaw law = expression_law("A*B*x^-alpha", {"x"}, o);
  const LawData d = synthetic(law, {std::log(2.0), std::log(3.0), 0.5}, 40, {{1e2, 1e6}}, 0.01, 9);
  FitOptions fo;
  fo.grid = {{"A", {1.0, 10.0}}, {"B", {1.0, 10.0}}, {"alpha", {0.2, 1.0}}};
  const LawFit f = fit_law(law, d, fo);
  bool flat = false;
  for (const auto& w : f.warnings) flat = flat || w.find("not unique") != std::string::npos;
  EXPECT_TRUE(flat);
  // A well-posed law on the same data: no such warning.
  ExpressionLawOptions p;
  p.bounds = parse_bounds("A=0:");
  const ScalingLaw good = expression_law("A*x^-alpha", {"x"}, p);
  LawData d2 = d;
  good.prepare(d2);
  const LawFit g = fit_law(good, d2, {});
  for (const auto& w : g.warnings) EXPECT_EQ(w.find("not unique"), std::string::npos) << w;
}

TEST(LawExpression, OptionsAndErrors) {
  const auto b = parse_bounds("alpha=0:2,E=0:, beta=:3");
  EXPECT_EQ(b.at("alpha").hi, 2);
  EXPECT_TRUE(b.at("E").positive_scale());
  EXPECT_EQ(b.at("beta").hi, 3);
  EXPECT_FALSE(b.at("beta").positive_scale());
  EXPECT_THROW(parse_bounds("alpha=2:0"), InputError);
  EXPECT_THROW(parse_bounds("alpha"), InputError);
  EXPECT_THROW(parse_bounds("alpha=x:1"), InputError);
  const auto g = parse_grid_option("log(A)=0:5:25");
  EXPECT_EQ(g.first, "log(A)");
  EXPECT_EQ(g.second, (std::vector<double>{0, 5, 10, 15, 20, 25}));
  EXPECT_EQ(parse_grid_option("A=exp(0),1e3").second[1], 1e3);
  EXPECT_THROW(parse_grid_option("A=1:0:3"), InputError);
  EXPECT_THROW(expression_law("N^2", {"N"}), InputError);             // no parameter
  EXPECT_THROW(expression_law("A*zeta(s)", {"N"}), InputError);       // no derivative, and no input
  EXPECT_THROW(expression_law("A*N + zeta(s)", {"N"}), InputError);   // no derivative
  EXPECT_THROW(expression_law("A*foo(N)", {"N"}), InputError);        // unknown function
  EXPECT_THROW(expression_law("A*N^", {"N"}), InputError);            // syntax
  ExpressionLawOptions o;
  o.bounds = parse_bounds("Q=0:");
  EXPECT_THROW(expression_law("A*N", {"N"}, o), InputError);          // bounds on a non-parameter
  // A positive-scale parameter's initial values must be positive.
  o.bounds = parse_bounds("A=0:");
  const ScalingLaw law = expression_law("A*N^-a", {"N"}, o);
  const LawData d = synthetic(law, {0.0, 0.5}, 10, {{1, 100}}, 0.0, 1);
  FitOptions fo;
  fo.grid = {{"A", {-1.0}}};
  EXPECT_THROW(fit_law(law, d, fo), InputError);
  fo.grid = {{"nope", {1.0}}};
  EXPECT_THROW(fit_law(law, d, fo), InputError);
  FitOptions fb;
  fb.bounds = parse_bounds("nope=0:1");
  EXPECT_THROW(fit_law(law, d, fb), InputError);
}

TEST(LawExpression, RangesAreCountedBeforeTheirValuesAreMade) {
  // first + i step, not repeated addition: no drift at the end of a range.
  const auto tenths = parse_grid_option("a=0:0.1:1").second;
  ASSERT_EQ(tenths.size(), 11u);
  EXPECT_EQ(tenths.back(), 1.0);
  EXPECT_EQ(tenths[3], 3 * 0.1);
  // A step that adds nothing to the value once looped for ever, the list growing until memory ran
  // out: it is refused at once, and so is a count past the limit, named in the message.
  auto message = [](const std::string& text, const std::string& option, double max, const std::string& raise) {
    try {
      parse_grid_option(text, option, max, raise);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("a=1e17:1:100000000000000512", "--grid", 1000, "").find("--grid a range"), std::string::npos);
  EXPECT_NE(message("a=1e17:1:100000000000000512", "--grid", 1000, "").find("does not change"), std::string::npos);
  EXPECT_NE(message("x=1:1e-17:1.000000000000001", "predict", 1e5, "--max-points").find("predict x range"),
            std::string::npos);
  EXPECT_NE(message("a=0:1e-300:1", "--grid", 1000, "").find("1e+300 values"), std::string::npos);
  EXPECT_NE(message("a=-1e308:1e300:1e308", "--grid", 1000, "").find("inf values"), std::string::npos);
  EXPECT_NE(message("x=1:1:1e9", "predict", 1e5, "--max-points").find("raise the limit with --max-points"),
            std::string::npos);
  EXPECT_EQ(message("x=1:1:1e5", "predict", 1e5, "--max-points"), "accepted");
  EXPECT_NE(message("a=3:1:1", "--grid", 1000, "").find("last >= first"), std::string::npos);
}

TEST(LawExpression, GammaAtAPoleIsNotAnExceptionOfTheMathLibrary) {
  // Boost's tgamma throws at a pole and on overflow, with text naming Boost's function; the law
  // gives NaN or infinity there, which the fit steps back from and predict refuses in a sentence.
  const ScalingLaw law = expression_law("A*gamma(x)^-b", {"x"});
  for (double x : {-1.0, 0.0, 200.0}) {
    double lp = 0;
    EXPECT_NO_THROW(lp = law_log_predict_at(law, {1.0, 1.0}, {x})) << x;
    const double loss = std::exp(lp);
    EXPECT_FALSE(std::isfinite(loss) && loss > 0) << x;
  }
  // A constant of the law at a pole, and a grid value there, are sentences too.
  EXPECT_NO_THROW(expression_law("A*x^-b + gamma(-1)", {"x"}));
  EXPECT_THROW(parse_grid_option("A=gamma(-1)"), InputError);
}
