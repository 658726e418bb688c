#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"

using namespace scalinglab;

namespace {
double ev(const std::string& s, std::map<std::string, double> vars = {}) {
  return Expression(s).eval([&](const std::string& n) -> std::optional<double> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  });
}
}  // namespace

TEST(Expression, Arithmetic) {
  EXPECT_DOUBLE_EQ(ev("1 + 2 * 3"), 7);
  EXPECT_DOUBLE_EQ(ev("(1 + 2) * 3"), 9);
  EXPECT_DOUBLE_EQ(ev("2^3^2"), 512);  // right-associative
  EXPECT_DOUBLE_EQ(ev("-2^2"), -4);
  EXPECT_DOUBLE_EQ(ev("2^-1"), 0.5);
  EXPECT_DOUBLE_EQ(ev("d/8", {{"d", 100}}), 12.5);
  EXPECT_DOUBLE_EQ(ev("3.5*d^-1", {{"d", 7}}), 0.5);
  EXPECT_DOUBLE_EQ(ev("T^(-(1-1/alpha))", {{"T", 4}, {"alpha", 2}}), 0.5);
  EXPECT_DOUBLE_EQ(ev("1e3 + 1"), 1001);
  EXPECT_TRUE(std::isinf(ev("inf")));
}

TEST(Expression, Functions) {
  EXPECT_DOUBLE_EQ(ev("max(2, 3) + min(2, 3)"), 5);
  EXPECT_DOUBLE_EQ(ev("floor(2.7) + ceil(2.2)"), 5);
  EXPECT_NEAR(ev("log(exp(2))"), 2, 1e-15);
  EXPECT_NEAR(ev("zeta(2)"), M_PI * M_PI / 6, 1e-14);
  EXPECT_NEAR(ev("gamma(0.5)"), std::sqrt(M_PI), 1e-14);
  EXPECT_NEAR(ev("sqrt(16) + log2(8) + log10(100)"), 9, 1e-14);
}

// Past their range special functions answer as arithmetic does (NaN, infinity), where Boost
// would throw an exception naming its own function: a formula in a sweep file is a user's input.
TEST(Expression, SpecialFunctionsAtTheirPolesAreNumbersNotExceptions) {
  EXPECT_TRUE(std::isnan(ev("gamma(-1)")) || std::isinf(ev("gamma(-1)")));
  EXPECT_TRUE(std::isinf(ev("gamma(0)")) || std::isnan(ev("gamma(0)")));
  EXPECT_TRUE(std::isinf(ev("gamma(200)")));
  EXPECT_NEAR(ev("gamma(-0.5)"), -2 * std::sqrt(M_PI), 1e-13);  // Gamma(1/2) / (-1/2)
  EXPECT_GT(ev("zeta(1 + 1e-15)"), 1e14);  // 1/(s-1) near the pole, not an exception
}

TEST(Expression, Variables) {
  Expression e("a * b + a");
  auto v = e.variables();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], "a");
  EXPECT_EQ(v[1], "b");
}

TEST(Expression, Errors) {
  EXPECT_THROW(Expression("1 +"), InputError);
  EXPECT_THROW(Expression("(1 + 2"), InputError);
  EXPECT_THROW(Expression("1 $ 2"), InputError);
  EXPECT_THROW(ev("x + 1"), InputError);
  EXPECT_THROW(ev("nosuch(1)"), InputError);
  EXPECT_THROW(ev("max(1)"), InputError);
  try {
    ev("y * 2");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'y'"), std::string::npos);
  }
}

TEST(Expression, ComparisonsGiveOneOrZero) {
  auto v = [](const std::string& e) { return Expression(e).eval([](const std::string&) { return std::nullopt; }); };
  EXPECT_EQ(v("2 < 3"), 1.0);
  EXPECT_EQ(v("3 <= 2"), 0.0);
  EXPECT_EQ(v("1 + 2 >= 3"), 1.0);  // arithmetic binds tighter
  EXPECT_EQ(v("4 > 4"), 0.0);
  EXPECT_EQ(v("0.5*(2 > 1) + 0.25*(2 < 1)"), 0.5);
  EXPECT_EQ(v("max(1 < 2, 0)"), 1.0);
}

// Hostile nesting ends in an InputError, never a stack overflow; realistic nesting still parses.
TEST(Expression, NestingIsBounded) {
  auto message = [](const std::string& text) -> std::string {
    try {
      Expression e(text);
    } catch (const InputError& err) {
      return err.what();
    }
    return "";
  };
  EXPECT_NE(message(std::string(100000, '(') + "1" + std::string(100000, ')')).find("nested too deeply"), std::string::npos);
  EXPECT_NE(message(std::string(100000, '-') + "1").find("nested too deeply"), std::string::npos);
  std::string power = "2", sum = "1", call = "1";
  for (int i = 0; i < 50000; ++i) power += "^1", sum += "+1";
  for (int i = 0; i < 5000; ++i) call = "abs(" + call + ")";
  EXPECT_NE(message(power).find("nested too deeply"), std::string::npos);
  EXPECT_NE(message(sum).find("too long a chain"), std::string::npos);
  EXPECT_NE(message(call).find("nested too deeply"), std::string::npos);
  // 150 levels of parentheses and a chain of 900 operations are fine, and evaluate.
  EXPECT_EQ(ev(std::string(150, '(') + "2" + std::string(150, ')')), 2.0);
  std::string ok = "0";
  for (int i = 0; i < 900; ++i) ok += "+1";
  EXPECT_EQ(ev(ok), 900.0);
}
