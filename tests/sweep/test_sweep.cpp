// Sweep files: parsing (logspace/linspace/inf, profiles, --set, plot, checks), grid expansion, and
// one test per kind of bad input (each must name the file and the key).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/sweep/sweep.hpp"

using namespace scalinglab;

namespace {

// A tiny measure with one parameter of each kind; its values come from the stream only.
const Registry& toy() {
  static const Registry r = [] {
    Registry reg;
    Measure m;
    m.name = "toy.noise";
    m.params = {int_param("N", "10", "size"),
                int_param("d", "16", "dimension"),
                count_param("T", "inf", "samples"),
                real_param("x", "1", "a real in [0, 10]", 0, 10),
                choice_param("scheme", "a", {"a", "b"}, "a choice"),
                int_param("P", "d/8", "a formula", 0).allow_expression()};
    m.metrics = {{"value", "uniform / N"}, {"curve", "a series", true}};
    m.fn = [](const Params& p, Stream& s) {
      Record rec;
      rec.set("value", s.uniform() / static_cast<double>(p.integer("N")));
      rec.set_series("curve", {s.uniform(), s.uniform()});
      return rec;
    };
    reg.add(std::move(m));
    // A second measure sharing N and d, for multi-part sweeps.
    Measure t;
    t.name = "toy.theory";
    t.params = {int_param("N", "10", "size"), int_param("d", "16", "dimension"), real_param("y", "0", "a real")};
    t.metrics = {{"value", "N / d"}, {"bound", "y"}};
    t.fn = [](const Params& p, Stream&) {
      Record rec;
      rec.set("value", p.real("N") / p.real("d"));
      rec.set("bound", p.real("y"));
      return rec;
    };
    reg.add(std::move(t));
    return reg;
  }();
  return r;
}

Sweep parse(const std::string& text, const std::string& profile = "", const std::vector<std::string>& sets = {}) {
  return parse_sweep(text, "exp/fig1.toml", profile, sets, toy());
}

// Parsing `text` fails with an InputError whose message contains every one of `parts`.
void expect_error(const std::string& text, const std::vector<std::string>& parts,
                  const std::vector<std::string>& sets = {}) {
  try {
    parse(text, "", sets);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("exp/fig1.toml"), std::string::npos) << msg;
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

const char* kHead = "measure = \"toy.noise\"\n";

std::vector<std::string> values(const Sweep& s, const std::string& axis) {
  for (const auto& a : s.grid)
    if (a.name == axis) return a.values;
  return {};
}

}  // namespace

TEST(SweepFile, ParsesEverySection) {
  const Sweep s = parse(R"toml(
measure = "toy.noise"
title   = "error vs d"
runs    = 7
seed    = 3
[params]
N = 1000
scheme = "b"
P = "d/4"
[grid]
d = "logspace(10, 1000, 3)"
T = [100, 1e3, "inf"]
[plot]
x = "d"
y = "value"
series = "T"
log = ["x", "y"]
band = "sem"
where = { T = 1e3 }
reference = ["3.5*d^-1", { expr = "0.35*d^(-1/4)", label = "d^-1/4", where = { scheme = "a" } }]
[[check]]
claim = "slope"
slope = { x = "d", y = "value", where = { T = "inf" }, x_min = 10, x_max = 500, expect = -1.0, tol = 0.15 }
[[check]]
claim = "below"
below = { x = "d", y = "value", bound = "3.5*d^-1" }
[[check]]
claim = "ordered"
ordered = { x = "d", y = "value", series = "T", order = [100, "inf"], decreasing = true }
[[check]]
claim = "reaches"
reaches = { x = "d", y = "value", threshold = 0.01, rising = true, after = 50 }
)toml");
  EXPECT_EQ(s.name, "fig1");
  EXPECT_EQ(s.title, "error vs d");
  EXPECT_EQ(s.measure, "toy.noise");
  EXPECT_EQ(s.runs, 7);
  EXPECT_EQ(s.seed, 3u);
  EXPECT_EQ(s.fixed.at("N"), "1000");
  EXPECT_EQ(s.fixed.at("scheme"), "b");
  EXPECT_EQ(s.fixed.at("P"), "d/4");
  ASSERT_EQ(s.grid.size(), 2u);
  EXPECT_EQ(s.grid[0].name, "d");  // file order, although "T" < "d" alphabetically
  EXPECT_EQ(s.grid[0].values, (std::vector<std::string>{"10", "100", "1000"}));
  EXPECT_EQ(s.grid[1].values, (std::vector<std::string>{"100", "1000", "inf"}));

  ASSERT_TRUE(s.plot);
  EXPECT_EQ(s.plot->x, "d");
  EXPECT_EQ(s.plot->series, "T");
  EXPECT_TRUE(s.plot->logx && s.plot->logy);
  EXPECT_EQ(s.plot->band, "sem");
  EXPECT_EQ(s.plot->where.at("T"), "1000");  // normalised like parameters
  ASSERT_EQ(s.plot->references.size(), 2u);
  EXPECT_EQ(s.plot->references[0].label, "3.5*d^-1");
  EXPECT_EQ(s.plot->references[1].label, "d^-1/4");
  EXPECT_EQ(s.plot->references[1].where.at("scheme"), "a");

  ASSERT_EQ(s.checks.size(), 4u);
  EXPECT_EQ(s.checks[0].kind, "slope");
  EXPECT_EQ(s.checks[0].where.at("T"), "inf");
  EXPECT_DOUBLE_EQ(s.checks[0].x_max, 500);
  EXPECT_DOUBLE_EQ(s.checks[0].expect, -1.0);
  EXPECT_DOUBLE_EQ(s.checks[0].tol, 0.15);
  EXPECT_EQ(s.checks[1].kind, "below");
  EXPECT_EQ(s.checks[1].bound, "3.5*d^-1");
  EXPECT_EQ(s.checks[2].order, (std::vector<std::string>{"100", "inf"}));
  EXPECT_EQ(s.checks[2].order_group, (std::vector<std::size_t>{0, 1}));
  const Sweep g = parse(std::string(kHead) + "[grid]\nT = [1, 2, 3]\n[[check]]\nclaim = \"c\"\n"
                        "ordered = { x = \"d\", y = \"value\", series = \"T\", order = [[1, 2], 3] }\n");
  EXPECT_EQ(g.checks[0].order, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(g.checks[0].order_group, (std::vector<std::size_t>{0, 0, 1}));
  EXPECT_TRUE(s.checks[2].decreasing);
  EXPECT_TRUE(s.checks[3].rising);
  EXPECT_FALSE(s.checks[3].before.has_value());
  EXPECT_DOUBLE_EQ(*s.checks[3].after, 50);
}

TEST(SweepFile, ExpandsLogspaceAndLinspace) {
  const ParamSpec n = int_param("n", "1", ""), r = real_param("r", "1", "");
  EXPECT_EQ(expand_values("logspace(1, 4, 10)", n), (std::vector<std::string>{"1", "2", "3", "4"}));  // deduped
  EXPECT_EQ(expand_values("logspace(1, 100, 3)", r), (std::vector<std::string>{"1", "10", "100"}));
  EXPECT_EQ(expand_values("linspace(0, 1, 5)", r), (std::vector<std::string>{"0", "0.25", "0.5", "0.75", "1"}));
  EXPECT_EQ(expand_values(" linspace( 2 , 2 , 1 ) ", r), (std::vector<std::string>{"2"}));
  EXPECT_EQ(expand_values("inf", count_param("T", "inf", "")), (std::vector<std::string>{"inf"}));
  const auto v = expand_values("logspace(10, 1000, 12)", n);
  EXPECT_EQ(v.size(), 12u);
  EXPECT_EQ(v.front(), "10");
  EXPECT_EQ(v.back(), "1000");
  EXPECT_THROW(expand_values("logspace(0, 10, 3)", r), InputError);
  EXPECT_THROW(expand_values("logspace(1, 10)", r), InputError);
  EXPECT_THROW(expand_values("linspace(1, 10, 2.5)", r), InputError);
  EXPECT_THROW(expand_values("logspace(1, 10, 3)", choice_param("c", "a", {"a"}, "")), InputError);
}

TEST(SweepFile, AcceptsInfInEveryForm) {
  const Sweep s = parse(std::string(kHead) + "[params]\nT = inf\n[grid]\nd = 32\nx = [0.5, \"1e0\"]\n");
  EXPECT_EQ(s.fixed.at("T"), "inf");  // bare TOML inf
  EXPECT_EQ(values(s, "d"), (std::vector<std::string>{"32"}));  // a single value is a one-value axis
  const auto points = expand_grid(s, toy().get("toy.noise"));
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].params.entry("x").text, "1");
  EXPECT_EQ(points[0].params.entry("T").text, "inf");
}

TEST(SweepFile, ProfilesOverrideAndUnknownProfilesAreIgnored) {
  const std::string text = std::string(kHead) + R"toml(
runs = 100
[params]
N = 1000
[grid]
d = [16, 32, 64]
T = [10, 100]
[profile.quick]
runs = 20
params = { N = 200, T = 50 }
grid = { d = "logspace(10, 1000, 3)", x = [1, 2] }
[profile.paper.params]
N = 5000
)toml";
  const Sweep quick = parse(text, "quick");
  EXPECT_EQ(quick.profile, "quick");
  EXPECT_EQ(quick.runs, 20);
  EXPECT_EQ(quick.fixed.at("N"), "200");
  EXPECT_EQ(quick.fixed.at("T"), "50");  // a fixed override removes the grid axis
  ASSERT_EQ(quick.grid.size(), 2u);
  EXPECT_EQ(quick.grid[0].name, "d");
  EXPECT_EQ(quick.grid[0].values, (std::vector<std::string>{"10", "100", "1000"}));
  EXPECT_EQ(quick.grid[1].name, "x");  // added axes come last

  EXPECT_EQ(parse(text, "paper").fixed.at("N"), "5000");
  const Sweep none = parse(text, "nonexistent");
  EXPECT_EQ(none.profile, "");
  EXPECT_EQ(none.runs, 100);
  EXPECT_EQ(none.grid.size(), 2u);
}

TEST(SweepFile, ChecksLimitedToProfilesAndKnownFailures) {
  const std::string text = std::string(kHead) + R"toml(
[grid]
d = [16, 32]
[profile.quick]
runs = 2
[[check]]
claim = "everywhere"
below = { x = "d", y = "value", bound = "1e9" }
[[check]]
claim = "quick only"
profiles = ["quick"]
known_failure = "too small"
ordered = { x = "d", y = "value", series = "N", order = ["1", "2"], sem = 2 }
[[check]]
claim = "as written"
profiles = ["default", "paper"]
above = { x = "d", y = "value", bound = "0" }
)toml";
  const Sweep quick = parse(text, "quick");
  ASSERT_EQ(quick.checks.size(), 2u);
  EXPECT_EQ(quick.checks[1].claim, "quick only");
  EXPECT_EQ(quick.checks[1].known_failure, "too small");
  EXPECT_EQ(quick.checks[1].sem, 2);
  const Sweep plain = parse(text);
  ASSERT_EQ(plain.checks.size(), 2u);
  EXPECT_EQ(plain.checks[1].claim, "as written");
  EXPECT_EQ(parse(text, "paper").checks.size(), 2u);  // not defined in the file: runs as written
  expect_error(std::string(kHead) + "[[check]]\nclaim = \"c\"\nprofiles = []\nbelow = { x = \"d\", y = \"value\", bound = \"1\" }\n",
               {"profiles"});
  expect_error(std::string(kHead) + "[[check]]\nclaim = \"c\"\nordered = { x = \"d\", y = \"value\", series = \"N\", order = [\"1\", \"2\"], sem = -1 }\n",
               {"sem"});
}

TEST(SweepFile, SetOverridesParamsRunsAndSeed) {
  const std::string text = std::string(kHead) + "runs = 5\n[params]\nN = 100\n[grid]\nd = [16, 32]\nT = [1, 2]\n";
  const Sweep s = parse(text, "", {"N=7", "d=64", "runs=2", "seed=9"});
  EXPECT_EQ(s.fixed.at("N"), "7");
  EXPECT_EQ(s.fixed.at("d"), "64");
  ASSERT_EQ(s.grid.size(), 1u);  // d is no longer an axis
  EXPECT_EQ(s.grid[0].name, "T");
  EXPECT_EQ(s.runs, 2);
  EXPECT_EQ(s.seed, 9u);
  expect_error(text, {"--set", "unknown parameter 'Q'"}, {"Q=1"});
  expect_error(text, {"--set", "runs"}, {"runs=0"});
  expect_error(text, {"grid point", "N='abc'"}, {"N=abc"});
}

TEST(SweepGrid, FirstAxisSlowestWithFormulasResolved) {
  const Sweep s = parse(std::string(kHead) + "runs = 3\nseed = 4\n[grid]\nd = [16, 32]\nscheme = [\"a\", \"b\"]\n");
  const auto points = expand_grid(s, toy().get("toy.noise"));
  ASSERT_EQ(points.size(), 4u);
  const std::vector<std::pair<std::string, std::string>> order = {{"16", "a"}, {"16", "b"}, {"32", "a"}, {"32", "b"}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(points[i].index, i);
    EXPECT_EQ(points[i].params.entry("d").text, order[i].first);
    EXPECT_EQ(points[i].params.entry("scheme").text, order[i].second);
  }
  EXPECT_EQ(points[2].params.entry("P").text, "4");  // d/8 with d = 32
  EXPECT_EQ(points[0].key, "toy.noise N=10 d=16 T=inf x=1 scheme=a P=2");  // runs and seed excluded
  EXPECT_EQ(points[0].params.integer("runs"), 3);
  EXPECT_EQ(points[0].params.integer("seed"), 4);
  EXPECT_EQ(expand_grid(parse(kHead), toy().get("toy.noise")).size(), 1u);  // no grid: one point
}

TEST(SweepGrid, LinkedAxisSetsSeveralParametersTogether) {
  const std::string text = std::string(kHead) + R"toml(
[grid]
scheme = [{ scheme = "a", x = 2 }, { scheme = "b", x = 3, P = "d/4" }]
d = [16, 32]
[profile.quick.params]
x = 5
)toml";
  const Sweep s = parse(text);
  ASSERT_EQ(s.grid.size(), 2u);
  EXPECT_EQ(s.grid[0].values, (std::vector<std::string>{"a", "b"}));  // labels: the axis parameter
  const auto points = expand_grid(s, toy().get("toy.noise"));
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[1].key, "toy.noise N=10 d=32 T=inf x=2 scheme=a P=4");
  EXPECT_EQ(points[3].key, "toy.noise N=10 d=32 T=inf x=3 scheme=b P=8");
  const Sweep quick = parse(text, "quick");  // a fixed value overrides the linked one
  EXPECT_EQ(expand_grid(quick, toy().get("toy.noise"))[3].params.entry("x").text, "5");
  EXPECT_EQ(parse(text, "", {"scheme=a"}).grid.size(), 1u);
  expect_error(std::string(kHead) + "[grid]\nscheme = [{ x = 2 }]\n", {"[grid].scheme", "sets scheme"});
  expect_error(std::string(kHead) + "[grid]\nscheme = [{ scheme = \"a\" }, \"b\"]\n", {"mixes"});
  expect_error(std::string(kHead) + "[grid]\nscheme = [{ scheme = \"a\", Q = 1 }]\n", {"unknown parameter 'Q'"});
  expect_error(std::string(kHead) + "[params]\nx = 1\n[grid]\nscheme = [{ scheme = \"a\", x = 2 }]\n",
               {"both fixed"});
}

TEST(SweepFile, LoadsFromDiskAndKeepsTheText) {
  const auto path = std::filesystem::temp_directory_path() / "scalinglab-sweep-test.toml";
  const std::string text = std::string(kHead) + "[grid]\nd = [16, 32]\n";
  std::ofstream(path) << text;
  const Sweep s = load_sweep(path.string(), "", {}, toy());
  EXPECT_EQ(s.name, "scalinglab-sweep-test");
  EXPECT_EQ(s.text, text);
  std::filesystem::remove(path);
  EXPECT_THROW(load_sweep(path.string(), "", {}, toy()), InputError);
}

TEST(SweepFile, RejectsEachKindOfBadInput) {
  const std::string h = kHead;
  expect_error("measure = \"toy.noise\"\n[grid\nd = 1\n", {":2:", "malformed TOML"});
  expect_error("runs = 3\n", {"missing key 'measure'"});
  expect_error("measure = \"toy.nope\"\n", {":1:", "unknown measure 'toy.nope'", "toy.noise"});
  expect_error(h + "rnus = 3\n", {":2:", "unknown key 'rnus'"});
  expect_error(h + "runs = 0\n", {"runs", ">= 1"});
  expect_error(h + "runs = 2.5\n", {"runs"});
  expect_error(h + "[params]\nQ = 1\n", {"[params]", "unknown parameter 'Q'", "known: N, d"});
  expect_error(h + "[params]\nruns = 1\n", {"[params]", "top level"});
  expect_error(h + "[grid]\nQ = [1, 2]\n", {"[grid]", "unknown parameter 'Q'"});
  expect_error(h + "[grid]\nd = []\n", {"[grid].d", "empty grid axis"});
  expect_error(h + "[grid]\nd = \"logspace(0, 10, 3)\"\n", {"[grid].d", "a > 0"});
  expect_error(h + "[grid]\nd = [[1]]\n", {"[grid].d", "expected a number"});
  expect_error(h + "[params]\nd = 16\n[grid]\nd = [1, 2]\n", {"both fixed"});
  expect_error(h + "[params]\nN = \"many\"\n", {"[params]", "N='many'"});
  expect_error(h + "[params]\nx = 20\n", {"x=20", "out of range"});
  expect_error(h + "[grid]\nscheme = [\"a\", \"c\"]\n", {"grid point", "scheme='c'"});
  expect_error(h + "[grid]\nd = [16, 16.0]\n", {"same parameters"});
  expect_error(h + "[profile.quick]\nrunz = 1\n", {"[profile.quick]", "unknown key 'runz'"});
  expect_error(h + "[profile.quick.params]\nQ = 1\n", {"[profile.quick] params", "unknown parameter 'Q'"});
  expect_error(h + "[plot]\nx = \"d\"\n", {"[plot]", "needs x"});
  expect_error(h + "[plot]\nx = \"d\"\ny = \"curve\"\n", {"[plot] y", "unknown metric 'curve'"});
  expect_error(h + "[plot]\nx = \"Q\"\ny = \"value\"\n", {"[plot] x", "unknown parameter 'Q'"});
  expect_error(h + "[plot]\nx = \"d\"\ny = \"value\"\nwhere = { Q = 1 }\n", {"[plot].where", "'Q'"});
  expect_error(h + "[plot]\nx = \"d\"\ny = \"value\"\nband = \"iqr\"\n", {"band"});
  expect_error(h + "[plot]\nx = \"d\"\ny = \"value\"\nreference = [\"q*d\"]\n", {"reference", "'q'"});
  expect_error(h + "[plot]\nx = \"d\"\ny = \"value\"\nreference = [\"d^\"]\n", {"reference"});
  const std::string c = h + "[[check]]\nclaim = \"c\"\n";
  expect_error(h + "[[check]]\nslope = { x = \"d\", y = \"value\", expect = 1, tol = 1 }\n", {"#1", "claim"});
  expect_error(c, {"[[check]] #1", "needs one of slope"});
  expect_error(c + "slope = { x = \"d\", y = \"value\", expect = 1 }\n", {"slope", "needs tol"});
  expect_error(c + "slope = { x = \"d\", y = \"err\", expect = 1, tol = 1 }\n", {"unknown metric 'err'"});
  expect_error(c + "slope = { x = \"d\", y = \"value\", expect = 1, tol = 1, bound = \"d\" }\n", {"unknown key 'bound'"});
  expect_error(c + "below = { x = \"d\", y = \"value\", bound = \"1\" }\nabove = { x = \"d\", y = \"value\", bound = \"1\" }\n",
               {"has both"});
  expect_error(c + "below = { x = \"d\", y = \"value\", bound = \"1\", where = { Q = 1 } }\n", {"where", "'Q'"});
  expect_error(c + "ordered = { x = \"d\", y = \"value\", series = \"scheme\", order = [\"a\"] }\n", {"at least two"});
  expect_error(c + "reaches = { x = \"d\", y = \"value\", threshold = 1 }\n", {"needs before or after"});
}

// Two measures over one grid: each part runs over the axes its measure declares, its own values
// override the shared ones, and profiles and --set apply to every part.
const char* kParts = R"toml(title = "noise vs theory"
runs = 2
[params]
N = 100
[grid]
d = [8, 16]
x = [1, 2]
[[part]]
name = "sim"
measure = "toy.noise"
params = { scheme = "b" }
[[part]]
name = "theory"
measure = "toy.theory"
params = { y = 3, N = 50 }
[plot]
x = "d"
y = "value"
series = "part"
[[check]]
claim = "theory below simulation"
ordered = { x = "d", y = "value", series = "part", order = ["theory", "sim"], where = { x = 1 } }
)toml";

TEST(SweepParts, EachPartRunsOverTheAxesItsMeasureDeclares) {
  const Sweep s = parse(kParts);
  ASSERT_EQ(s.parts.size(), 2u);
  EXPECT_EQ(s.measure, "toy.noise");
  EXPECT_EQ(s.measures_text(), "toy.noise, toy.theory");
  const auto points = expand_grid(s, toy());
  ASSERT_EQ(points.size(), 6u);  // sim: d x x = 4; theory has no x: 2
  EXPECT_EQ(points[0].part, "sim");
  EXPECT_EQ(points[0].measure, &toy().get("toy.noise"));
  EXPECT_EQ(points[0].params.choice("scheme"), "b");
  EXPECT_EQ(points[0].params.integer("N"), 100);
  EXPECT_EQ(points[1].params.real("x"), 2.0);
  EXPECT_EQ(points[4].part, "theory");
  EXPECT_EQ(points[4].measure, &toy().get("toy.theory"));
  EXPECT_EQ(points[4].params.integer("N"), 50);  // the part's own value wins
  EXPECT_EQ(points[4].params.integer("d"), 8);
  EXPECT_EQ(points[5].params.integer("d"), 16);
  EXPECT_EQ(points[4].key.rfind("part=theory ", 0), 0u) << points[4].key;
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(points[i].index, i);

  // --set and profiles replace the parts' own values too.
  const Sweep set = parse(kParts, "", {"N=7"});
  for (const auto& p : expand_grid(set, toy())) EXPECT_EQ(p.params.integer("N"), 7);
  const Sweep quick = parse(std::string(kParts) + "[profile.quick]\nparams = { N = 9 }\ngrid = { d = [4] }\n", "quick");
  const auto qp = expand_grid(quick, toy());
  ASSERT_EQ(qp.size(), 3u);
  for (const auto& p : qp) EXPECT_EQ(p.params.integer("N"), 9);

  // A part may fix a grid axis: that axis is dropped for it.
  const Sweep fixed = parse(std::string(kParts).replace(std::string(kParts).find("y = 3"), 5, "y = 3, d = 4"));
  const auto fp = expand_grid(fixed, toy());
  ASSERT_EQ(fp.size(), 5u);
  EXPECT_EQ(fp[4].params.integer("d"), 4);
}

TEST(SweepParts, RejectsBadParts) {
  const std::string part = "[[part]]\nname = \"a\"\nmeasure = \"toy.noise\"\n";
  expect_error("measure = \"toy.noise\"\n" + part, {"not both"});
  expect_error("part = 3\n", {"[[part]] tables"});
  expect_error("[[part]]\nname = \"a\"\n", {"[[part]] #1", "needs name and measure"});
  expect_error("[[part]]\nname = \"a\"\nmeasure = \"toy.nope\"\n", {"[[part]] #1 measure", "unknown measure"});
  expect_error(part + part, {"[[part]] #2 name", "used twice"});
  expect_error("[[part]]\nname = \"a b\"\nmeasure = \"toy.noise\"\n", {"[[part]] #1 name"});
  expect_error("[[part]]\nname = \"a\"\nmeasure = \"toy.theory\"\nparams = { x = 1 }\n",
               {"[[part]] #1 params", "unknown parameter 'x' of toy.theory"});
  expect_error(part + "colour = 1\n", {"unknown key 'colour'"});
  expect_error(part + "[params]\nQ = 1\n", {"[params]", "unknown parameter 'Q'"});
  expect_error(part + "[grid]\npart = [\"a\"]\n", {"'part' names"});
  expect_error(part + "[plot]\nx = \"d\"\ny = \"value\"\nwhere = { part = \"b\" }\n", {"'b' is not a value of part"});
  expect_error(part + "[plot]\nx = \"d\"\ny = \"bound\"\n", {"unknown metric 'bound'"});
  expect_error(part, {"'part' names"}, {"part=a"});
  expect_error(part + "[params]\nx = 20\n", {"part a", "x=20"});
}

namespace scalinglab {
namespace {

// A `~` in a label is text ("epochs ~ C / gamma"), not gnuplot's overprint; other markup stays.
TEST(SweepFile, TildeInLabelsIsLiteral) {
  const Sweep s = parse(std::string(kHead) + "[grid]\nd = [1, 2]\n[plot]\nx = \"d\"\ny = \"value\"\n"
                        "xlabel = \"epochs ~ C / gamma, d^{2}\"\nylabel = \"a \\\\~ b\"\ntitle = \"~\"\n");
  ASSERT_TRUE(s.plot);
  EXPECT_EQ(s.plot->xlabel, "epochs \\~ C / gamma, d^{2}");
  EXPECT_EQ(s.plot->ylabel, "a \\~ b");  // already escaped: left alone
  EXPECT_EQ(s.plot->title, "\\~");
}

// A plot or check may run along a scalar metric; ordered and optimum need a parameter.
TEST(SweepFile, XAlongAMetric) {
  const std::string grid = "measure = \"toy.theory\"\n[grid]\nd = [1, 2]\n";
  const Sweep s = parse(grid + "[plot]\nx = \"bound\"\ny = \"value\"\nreference = \"2*bound\"\n"
                        "[[check]]\nclaim = \"c\"\nslope = { x = \"bound\", y = \"value\", expect = 0, tol = 1 }\n");
  EXPECT_EQ(s.plot->x, "bound");
  EXPECT_EQ(s.checks.at(0).x, "bound");
  expect_error(grid + "[[check]]\nclaim = \"c\"\nordered = { x = \"bound\", y = \"value\", series = \"d\", order = [\"1\", \"2\"] }\n",
               {"'bound' is a metric; this x must be a parameter"});
  expect_error(grid + "[plot]\nx = \"nope\"\ny = \"value\"\n", {"nope"});
}

}  // namespace
}  // namespace scalinglab

namespace scalinglab {
namespace {

TEST(SweepFile, WhereTakesComparisonsAsValuesOrAsConditions) {
  const std::string h = std::string(kHead) + "[grid]\nd = [16, 64, 256]\n[plot]\nx = \"d\"\ny = \"value\"\n";
  Sweep s = parse(h + "where = { d = \"<= 256\", T = \"!=inf\", scheme = \"!=b\", N = \">=1e2, <1e3\" }\n");
  EXPECT_EQ(s.plot->where.at("d"), "<=256");
  EXPECT_EQ(s.plot->where.at("T"), "!=inf");
  EXPECT_EQ(s.plot->where.at("scheme"), "!=b");
  EXPECT_EQ(s.plot->where.at("N"), ">=100,<1000");  // operands normalised like values
  s = parse(h + "where = \"d<=256\"\n");
  EXPECT_EQ(s.plot->where.at("d"), "<=256");
  s = parse(h + "where = [\"d >= 64\", \"d<=256\", \"T=1e3\", \"scheme == a\"]\n");
  EXPECT_EQ(s.plot->where.at("d"), ">=64,<=256");
  EXPECT_EQ(s.plot->where.at("T"), "1000");  // an equality is a plain value, as in a table
  EXPECT_EQ(s.plot->where.at("scheme"), "a");
  s = parse(h + "[[check]]\nclaim = \"c\"\nbelow = { x = \"d\", y = \"value\", bound = \"1\", where = \"d>16\" }\n");
  EXPECT_EQ(s.checks.at(0).where.at("d"), ">16");
  // A value that is a number stays a value (T = 100 is not a comparison).
  EXPECT_EQ(parse(h + "where = { T = 100 }\n").plot->where.at("T"), "100");

  expect_error(h + "where = { scheme = \">a\" }\n", {"[plot].where.scheme", "compares numbers"});
  expect_error(h + "where = { d = \"<=many\" }\n", {"[plot].where.d", "'many'"});
  expect_error(h + "where = { d = \"<=\" }\n", {"[plot].where.d", "expected comparisons"});
  expect_error(h + "where = \"<3\"\n", {"[plot].where", "expected NAME=VALUE"});
  expect_error(h + "where = \"Q<3\"\n", {"[plot].where", "unknown parameter 'Q'"});
  expect_error(h + "where = [3]\n", {"[plot].where", "expected a string"});
  expect_error(h + "where = { scheme = \"!=c\" }\n", {"'c' is not a value of scheme"});
}

TEST(SweepParts, TheoryPartsAreTheDeterministicOnesUnlessTheFileSays) {
  const std::string parts = kParts;
  Sweep s = parse(parts);
  EXPECT_TRUE(s.plot->theory_parts.empty());  // toy.theory is not declared deterministic
  EXPECT_EQ(s.plot->part_metrics.at("theory"), (std::vector<std::string>{"value", "bound"}));
  EXPECT_EQ(s.plot->part_metrics.at("sim"), (std::vector<std::string>{"value", "curve"}));
  std::string marked = parts;
  marked.replace(marked.find("measure = \"toy.theory\""), 22, "measure = \"toy.theory\"\ntheory = true");
  s = parse(marked);
  EXPECT_EQ(s.plot->theory_parts, (std::vector<std::string>{"theory"}));
  EXPECT_FALSE(s.parts[0].theory);
  EXPECT_TRUE(s.parts[1].theory);
  marked.replace(marked.find("theory = true"), 13, "theory = 1");
  expect_error(marked, {"[[part]] #2 theory", "true or false"});
}

}  // namespace
}  // namespace scalinglab

TEST(SweepFile, ACheckNamesTheWrongModelItMustReject) {
  const std::string check = "[[check]]\nclaim = \"c\"\nslope = { x = \"d\", y = \"value\", expect = -1, tol = 0.1 }\n";
  const Sweep s = parse(std::string(kHead) + "[grid]\nd = [8, 16]\n" + check +
                        "counterfactual = { set = \"x=3\", why = \"breaks it\" }\n" + check +
                        "counterfactual = { set = [\"x=3\", \"scheme=b\"], why = \"both\" }\n" + check);
  ASSERT_EQ(s.checks.size(), 3u);
  EXPECT_EQ(s.checks[0].counterfactual, std::vector<std::string>{"x=3"});
  EXPECT_EQ(s.checks[0].counterfactual_why, "breaks it");
  EXPECT_EQ(s.checks[1].counterfactual, (std::vector<std::string>{"x=3", "scheme=b"}));
  EXPECT_TRUE(s.checks[2].counterfactual.empty());
  const std::string head = std::string(kHead) + check;
  expect_error(head + "counterfactual = \"x=3\"\n", {"[[check]] #1 counterfactual", "expected a table"});
  expect_error(head + "counterfactual = { set = \"x=3\" }\n", {"counterfactual", "needs set", "why"});
  expect_error(head + "counterfactual = { set = \"x=3\", why = \"\" }\n", {"counterfactual why"});
  expect_error(head + "counterfactual = { set = \"nope=3\", why = \"w\" }\n", {"counterfactual set", "unknown parameter 'nope'"});
  expect_error(head + "counterfactual = { set = \"x\", why = \"w\" }\n", {"counterfactual set", "NAME=VALUE"});
  expect_error(head + "counterfactual = { set = \"runs=3\", why = \"w\" }\n", {"counterfactual set", "does not change the model"});
  expect_error(head + "counterfactual = { set = [], why = \"w\" }\n", {"counterfactual set", "non-empty"});
  expect_error(head + "counterfactual = { set = \"x=3\", why = \"w\", extra = 1 }\n", {"unknown key 'extra'"});
}

TEST(SweepFile, PlotLegendRenamesCurves) {
  const Sweep s = parse(std::string(kHead) + "[grid]\nd = [8, 16]\n[plot]\nx = \"d\"\ny = \"value\"\n"
                        "legend = { value = \"mean of U/N\" }\n");
  ASSERT_TRUE(s.plot);
  EXPECT_EQ(s.plot->legend.at("value"), "mean of U/N");
  expect_error(std::string(kHead) + "[plot]\nkind = \"heatmap\"\nmatrix = \"curve\"\nrows = \"N\"\ncols = \"d\"\n"
               "legend = { a = \"b\" }\n", {"'legend' does not apply to heat maps"});
  expect_error(std::string(kHead) + "[plot]\nx = \"d\"\ny = \"value\"\nlegend = { value = 3 }\n", {"[plot] legend.value", "expected a string"});
}

TEST(SweepFile, AHugeAxisIsRefusedBeforeItsValuesAreMade) {
  const Limits saved = limits();
  Limits tight = saved;
  tight.max_points = 10;
  set_limits(tight);
  const auto start = std::chrono::steady_clock::now();
  expect_error(std::string(kHead) + "[grid]\nx = \"linspace(1.5, 3, 1000000)\"\n", {"1e+06 values", "--max-points"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  set_limits(saved);
  // Within the limit, rounding duplicates are dropped: 100000 integer values of [1, 1000] are 1000.
  const ParamSpec n = int_param("N", "10", "size", 1, 1e9);
  EXPECT_EQ(expand_values("linspace(1, 1000, 100000)", n).size(), 1000u);
}

// The kinds that ask for a margin, and what a check counted as evidence may not combine.
TEST(SweepFile, MarginKindsAndWhatEvidenceMayNotCombine) {
  const std::string head = std::string(kHead) + "[grid]\nd = [8, 16]\nscheme = [\"a\", \"b\"]\n[[check]]\nclaim = \"c\"\n";
  Sweep s = parse(head + "ordered = { x = \"d\", y = \"value\", series = \"scheme\", order = [\"a\", \"b\"], significant = 2 }\n");
  EXPECT_EQ(s.checks[0].significant, 2);
  s = parse(head + "within = { x = \"d\", y = \"value\", bound = \"1/N\", sem = 3, rtol = 0.1 }\n");
  EXPECT_EQ(s.checks[0].kind, "within");
  EXPECT_EQ(s.checks[0].rtol, 0.1);
  s = parse(head + "approaches = { x = \"d\", y = \"value\", limit = 1, from = \"above\", shrink = 0.5 }\n");
  EXPECT_TRUE(s.checks[0].from_above);
  s = parse(head + "equal_compute = { x = \"curve\", y = \"curve\", series = \"scheme\", order = [\"a\", \"b\"], factor = 0.5, at = \"first\" }\n");
  EXPECT_EQ(s.checks[0].at_rule, "first");
  s = parse(head + "equal_compute = { x = \"curve\", y = \"curve\", series = \"scheme\", order = [\"a\", \"b\"], at = 1e9 }\n");
  EXPECT_EQ(*s.checks[0].at, 1e9);
  expect_error(head + "ordered = { x = \"d\", y = \"value\", series = \"scheme\", order = [\"a\", \"b\"], sem = 1, significant = 2 }\n",
               {"exclude each other"});
  expect_error(head + "within = { x = \"d\", y = \"value\", bound = \"1\" }\n", {"needs sem", "rtol"});
  expect_error(head + "approaches = { x = \"d\", y = \"value\", limit = 1, from = \"below\", shrink = 1.5 }\n", {"shrink", "(0, 1)"});
  expect_error(head + "approaches = { x = \"d\", y = \"value\", limit = 1, from = \"up\", shrink = 0.5 }\n", {"from", "below"});
  expect_error(head + "equal_compute = { x = \"d\", y = \"curve\", series = \"scheme\", order = [\"a\", \"b\"] }\n",
               {"'d' is not a series metric"});
  expect_error(head + "equal_compute = { x = \"curve\", y = \"curve\", series = \"scheme\", order = [\"a\", \"b\"], at = \"last\" }\n",
               {"at:", "common", "first"});
  // A known failure or a substitute is no evidence: no wrong model to reject; not_evidence says why.
  const std::string slope = "slope = { x = \"d\", y = \"value\", expect = -1, tol = 0.1 }\n";
  expect_error(head + "known_failure = \"measured x\"\n" + slope + "counterfactual = { set = \"x=3\", why = \"w\" }\n",
               {"a known failure is not evidence"});
  expect_error(head + "substitute = \"another T\"\n" + slope + "counterfactual = { set = \"x=3\", why = \"w\" }\n",
               {"a substitute is not evidence"});
  expect_error(head + "not_evidence = \"\"\n" + slope, {"not_evidence", "say why"});
  expect_error(head + "substitute = \"another T\"\nnot_evidence = \"w\"\n" + slope, {"no evidence already"});
  s = parse(head + "not_evidence = \"no wrong model fails it\"\n" + slope +
            "counterfactual = { set = \"x=3\", why = \"w\", below_paper = \"the paper's own setting of Fig. 6\" }\n");
  EXPECT_EQ(s.checks[0].not_evidence, "no wrong model fails it");
  EXPECT_EQ(s.checks[0].counterfactual_below_paper, "the paper's own setting of Fig. 6");
  expect_error(head + slope + "counterfactual = { set = \"x=3\", why = \"w\", below_paper = \"\" }\n", {"below_paper", "say why"});
}
