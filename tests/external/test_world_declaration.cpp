// A loaded world's declaration is read into the lab's Measure and checked as the built-in measures'
// are: the same check, the same messages.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scalinglab/core/error.hpp"
#include "scalinglab/external/world_declaration.hpp"

using namespace scalinglab;
using nlohmann::json;

namespace {

json good() {
  return json::parse(R"({"name": "toy.m", "summary": "one line", "details": "more", "deterministic": false,
    "params": [{"name": "n", "type": "int", "default": 10, "doc": "size", "min": 1, "max": 1e6, "same_world": true},
               {"name": "a", "type": "real", "default": "0.5", "doc": "rate", "min": 0, "max": "inf"},
               {"name": "T", "type": "count", "default": "inf", "doc": "samples"},
               {"name": "s", "type": "choice", "default": "x", "doc": "scheme", "choices": ["x", "y"]},
               {"name": "b", "type": "bool", "default": false, "doc": "switch"},
               {"name": "P", "type": "real", "default": "n/2", "doc": "a formula", "expression": true}],
    "metrics": [{"name": "error", "doc": "e"}, {"name": "curve", "doc": "c", "series": true}],
    "work": "n*T"})");
}

std::string refusal(const json& j) {
  try {
    Measure m = external::measure_from_declaration(j, "w.py");
    m.fn = [](const Params&, Stream&) { return Record{}; };
    check_declaration(m);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Measure builtin_like(const json& j) {
  Measure m = external::measure_from_declaration(j, "w.py");
  m.fn = [](const Params&, Stream&) { return Record{}; };
  return m;
}

}  // namespace

TEST(WorldDeclaration, ReadsEveryFieldIntoTheLabsTypes) {
  Measure m = builtin_like(good());
  EXPECT_EQ(m.name, "toy.m");
  ASSERT_EQ(m.params.size(), 6u);
  EXPECT_EQ(m.params[0].type, ParamType::Int);
  EXPECT_TRUE(m.params[0].same_world);
  EXPECT_EQ(m.params[0].max, 1e6);
  EXPECT_EQ(m.params[1].max, INFINITY);
  EXPECT_EQ(m.params[2].type, ParamType::Count);
  EXPECT_EQ(m.params[3].choices, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(m.params[4].default_value, "false");
  EXPECT_TRUE(m.params[5].expression);
  EXPECT_TRUE(m.metrics[1].series);
  EXPECT_NO_THROW(check_declaration(m));
  // The work estimate is the declared formula of the task's parameters.
  const Params p = resolve_params(m.params, {{"n", "100"}, {"T", "7"}}, "t");
  EXPECT_EQ(m.work(p), 700);
  // A formula parameter resolves against the others.
  EXPECT_EQ(p.real("P"), 50);
}

TEST(WorldDeclaration, RefusesMalformedFieldsNamingThem) {
  auto with = [](const char* path, json v) {
    json j = good();
    j[json::json_pointer(path)] = std::move(v);
    return refusal(j);
  };

  EXPECT_NE(with("/colour", "red").find("unknown field \"colour\""), std::string::npos);
  EXPECT_NE(with("/params/0/type", "float").find("is not one of int, real, count, choice, bool"), std::string::npos);
  EXPECT_NE(with("/params/0/min", "low").find("'min' must be a number"), std::string::npos);
  EXPECT_NE(with("/params/2/max", 5).find("a count has no maximum"), std::string::npos);
  EXPECT_NE(with("/params/1/expression", "yes").find("'expression' must be true or false"), std::string::npos);
  EXPECT_NE(with("/metrics", json::object()).find("'metrics' must be a list"), std::string::npos);
  EXPECT_NE(with("/work", "n*").find("'work'"), std::string::npos);
  EXPECT_NE(with("/work", "n*zz").find("reads \"zz\", not a parameter"), std::string::npos);
  EXPECT_NE(refusal(json::array()).find("must be a JSON object"), std::string::npos);
}

// The meaning of a declaration is checked by check_declaration, for built-in and loaded measures
// alike: a loaded declaration with a defect gives the message a built-in with that defect gives.
TEST(WorldDeclaration, LoadedAndBuiltInDeclarationsGetTheSameMessages) {
  auto loaded = [](auto edit) {
    json j = good();
    edit(j);
    return refusal(j);
  };
  auto builtin = [](auto edit) {
    Measure m = builtin_like(good());
    edit(m);
    try {
      check_declaration(m);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  struct Case {
    std::function<void(json&)> j;
    std::function<void(Measure&)> m;
    const char* says;
  };
  const std::vector<Case> cases = {
      {[](json& j) { j["name"] = "toy"; }, [](Measure& m) { m.name = "toy"; }, "expected world.name"},
      {[](json& j) { j["params"][1]["name"] = "n"; }, [](Measure& m) { m.params[1].name = "n"; }, "declared twice"},
      {[](json& j) { j["params"][1]["name"] = "seed"; }, [](Measure& m) { m.params[1].name = "seed"; }, "is reserved"},
      {[](json& j) { j["params"][1]["name"] = "a b"; }, [](Measure& m) { m.params[1].name = "a b"; }, "not an identifier"},
      {[](json& j) { j["params"][0]["min"] = 5, j["params"][0]["max"] = 2; },
       [](Measure& m) { m.params[0].min = 5, m.params[0].max = 2; }, "is empty"},
      {[](json& j) { j["params"][0]["default"] = 0; }, [](Measure& m) { m.params[0].default_value = "0"; }, "do not resolve"},
      {[](json& j) { j["params"][3]["default"] = "z"; }, [](Measure& m) { m.params[3].default_value = "z"; }, "do not resolve"},
      {[](json& j) { j["metrics"] = json::array(); }, [](Measure& m) { m.metrics.clear(); }, "declares no metric"},
      {[](json& j) { j["metrics"][1]["name"] = "error"; }, [](Measure& m) { m.metrics[1].name = "error"; }, "declared twice"},
  };
  for (const auto& c : cases) {
    const std::string a = loaded(c.j), b = builtin(c.m);
    EXPECT_NE(a.find(c.says), std::string::npos) << a;
    EXPECT_EQ(a, b);
  }
}

// Every built-in measure passes the check it applies to loaded ones (as declared: without the
// `runs` and `seed` the registry adds).
TEST(WorldDeclaration, EveryBuiltInMeasurePassesTheDeclarationCheck) {
  for (const Measure* m : world_registry().all()) {
    Measure declared = *m;
    declared.params.resize(declared.params.size() - 2);
    EXPECT_NO_THROW(check_declaration(declared)) << m->name;
  }
}
