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
