#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/param.hpp"

using namespace scalinglab;

namespace {
std::vector<ParamSpec> specs() {
  return {int_param("N", "100", "tokens"), real_param("alpha", "2", "exponent", 0, 10),
          count_param("T", "inf", "samples"), choice_param("scheme", "q0", {"q0", "rho"}, "scheme"),
          bool_param("ln", "false", "layer norm"),
          int_param("P", "N/8", "threshold", 0, 1e9).allow_expression()};
}
std::string error_of(const std::map<std::string, std::string>& given) {
  try {
    resolve_params(specs(), given, "ctx");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Params, DefaultsAndParsing) {
  const auto s = specs();
  Params p = resolve_params(s, {{"N", "1e3"}, {"T", "inf"}, {"ln", "yes"}}, "ctx");
  EXPECT_EQ(p.integer("N"), 1000);
  EXPECT_DOUBLE_EQ(p.real("alpha"), 2.0);
  EXPECT_TRUE(std::isinf(p.count("T")));
  EXPECT_EQ(p.choice("scheme"), "q0");
  EXPECT_TRUE(p.flag("ln"));
  EXPECT_EQ(p.integer("P"), 125);  // formula N/8 evaluated after N
  EXPECT_EQ(p.canonical(), "N=1000 alpha=2 T=inf scheme=q0 ln=true P=125");
  const auto j = p.to_json();
  EXPECT_EQ(j["T"], "inf");
  EXPECT_EQ(j["N"], 1000);
  EXPECT_EQ(j["P"], 125);
}

TEST(Params, FormulaRoundsDown) {
  const auto s = specs();
  EXPECT_EQ(resolve_params(s, {{"N", "100"}}, "ctx").integer("P"), 12);
}

TEST(Params, BadInputNamesTheParameter) {
  EXPECT_NE(error_of({{"nope", "1"}}).find("unknown parameter 'nope'"), std::string::npos);
  EXPECT_NE(error_of({{"N", "abc"}}).find("N='abc'"), std::string::npos);
  EXPECT_NE(error_of({{"N", "2.5"}}).find("must be an integer"), std::string::npos);
  EXPECT_NE(error_of({{"N", "0"}}).find("out of range"), std::string::npos);
  EXPECT_NE(error_of({{"alpha", "11"}}).find("alpha"), std::string::npos);
  EXPECT_NE(error_of({{"T", "1.5"}}).find("integer or inf"), std::string::npos);
  EXPECT_NE(error_of({{"scheme", "q9"}}).find("not one of: q0, rho"), std::string::npos);
  EXPECT_NE(error_of({{"ln", "maybe"}}).find("true or false"), std::string::npos);
  EXPECT_NE(error_of({{"P", "zz/2"}}).find("'zz'"), std::string::npos);
  EXPECT_NE(error_of({{"P", "-N"}}).find("out of range"), std::string::npos);
  EXPECT_NE(error_of({{"N", "inf"}}).find("finite integer"), std::string::npos);
}

TEST(Params, SplitAssignment) {
  EXPECT_EQ(split_assignment("a=b=c"), (std::pair<std::string, std::string>{"a", "b=c"}));
  EXPECT_THROW(split_assignment("novalue"), InputError);
  EXPECT_THROW(split_assignment("=1"), InputError);
}

TEST(Params, ImplementationSwitchesDoNotEnterTheStreamKey) {
  std::vector<ParamSpec> s = {int_param("N", "10", "n"), bool_param("fast", "true", "path").implementation_switch()};
  const Params a = resolve_params(s, {{"fast", "true"}}, "ctx"), b = resolve_params(s, {{"fast", "false"}}, "ctx");
  EXPECT_NE(a.canonical(), b.canonical());  // still distinct grid points
  EXPECT_EQ(a.stream_text(), b.stream_text());
  EXPECT_EQ(a.stream_text(), "N=10");
}

TEST(Params, TextParametersAreCheckedByTheirValidator) {
  const std::vector<ParamSpec> specs = {
      text_param("pi", "0.2,0.6", "a list", number_list_validator(2)),
      text_param("eta", "exp(7*l/L)", "a formula of l and L", formula_validator({"l", "L"}))};
  const Params p = resolve_params(specs, {{"pi", "0.2, 0.6 ,0.95"}}, "t");
  EXPECT_EQ(p.choice("pi"), "0.2, 0.6 ,0.95");
  EXPECT_EQ(parse_number_list(p.choice("pi")), (std::vector<double>{0.2, 0.6, 0.95}));
  EXPECT_EQ(p.choice("eta"), "exp(7*l/L)");
  EXPECT_TRUE(std::isnan(p.real("eta")));
  EXPECT_EQ(p.to_json()["eta"], "exp(7*l/L)");
  auto fails = [&](const std::map<std::string, std::string>& given, const std::string& what) {
    try {
      resolve_params(specs, given, "ctx");
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  fails({{"pi", "0.2"}}, "at least 2 numbers");
  fails({{"pi", "0.2,x"}}, "'x' in '0.2,x' is not a number");
  fails({{"eta", "exp(7*k)"}}, "reads 'k'");
  fails({{"eta", "exp(7*"}}, "eta=");
}

// `where` values: a plain value (equality, numbers written any way, formulas) or comparisons.
TEST(Where, ComparisonsSelectNumbersAndEqualityStaysAsBefore) {
  const auto s = specs();  // the parameters point at their declarations
  const Params p = resolve_params(s, {{"N", "256"}, {"scheme", "rho"}}, "ctx");
  const auto& N = p.entry("N");
  const auto& T = p.entry("T");  // inf
  EXPECT_TRUE(entry_matches(N, "256"));
  EXPECT_TRUE(entry_matches(N, "2.56e2"));
  EXPECT_TRUE(entry_matches(p.entry("P"), "N/8"));  // the formula it was given as
  EXPECT_TRUE(entry_matches(N, "<=256"));
  EXPECT_FALSE(entry_matches(N, "<256"));
  EXPECT_TRUE(entry_matches(N, ">=64, <1e3"));
  EXPECT_FALSE(entry_matches(N, ">=64, <100"));
  EXPECT_TRUE(entry_matches(N, "==256"));
  EXPECT_TRUE(entry_matches(N, "!=255"));
  EXPECT_FALSE(entry_matches(N, "!=256"));
  EXPECT_TRUE(entry_matches(T, ">1e300"));  // inf is a number
  EXPECT_FALSE(entry_matches(T, "!=inf"));
  EXPECT_TRUE(entry_matches(p.entry("scheme"), "!=q0"));
  EXPECT_FALSE(entry_matches(p.entry("scheme"), "<3"));  // a word meets no ordering
}

TEST(Where, ConditionsParseAndRead) {
  const auto c = where_conditions(" >= 64 , < 1e4");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].op, ">=");
  EXPECT_EQ(c[0].value, "64");
  EXPECT_EQ(c[1].op, "<");
  EXPECT_EQ(c[1].value, "1e4");
  EXPECT_EQ(where_conditions("q0").front().op, "=");
  EXPECT_EQ(where_conditions("==5").front().op, "=");
  EXPECT_EQ(where_text("d", "256"), "d=256");
  EXPECT_EQ(where_text("d", ">=64,<1e4"), "d>=64 and d<1e4");
  EXPECT_THROW(where_conditions("<="), InputError);
  EXPECT_THROW(where_conditions(">=1,"), InputError);
  EXPECT_THROW(where_conditions("=<3"), InputError);
}
