// The claims layer: check fields (ref, substitute, reduced), the category of a result, item statuses
// and CLAIMS.md, and the papers' own indexes (every check names an item; every item is checked or says
// why not; the committed CLAIMS.md lists the same items and checks).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/cli_process.hpp"
#include "scalinglab/claims/claims.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

const char* kSweep = R"(measure = "memory.error"
reduced = "d up to 64 instead of 4096"
[grid]
d = [8, 16, 32, 64]
[profile.quick]
grid = { d = [8, 16] }
[profile.big]
grid = { d = [8, 16, 32, 64, 128] }
reduced = "still small"
[[check]]
claim = "slope"
ref = "Prop. 3"
slope = { x = "d", y = "error", expect = -1, tol = 0.2 }
counterfactual = { set = "scheme=rho", why = "no threshold" }
[[check]]
claim = "another setting"
ref = ["Prop. 3", "Fig. 1"]
substitute = "T = inf instead of T = 100"
below = { x = "d", y = "error", bound = "1" }
)";

class ClaimsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("scalinglab-claims-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "p");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / "p" / name) << text; }
  fs::path dir_;
};

TEST_F(ClaimsTest, SweepFieldsAndScaleOfEachProfile) {
  write("s.toml", kSweep);
  const std::string f = (dir_ / "p" / "s.toml").string();
  const Sweep as_written = load_sweep(f);
  EXPECT_EQ(as_written.reduced, "d up to 64 instead of 4096");
  ASSERT_EQ(as_written.checks.size(), 2u);
  EXPECT_EQ(as_written.checks[0].refs, std::vector<std::string>{"Prop. 3"});
  EXPECT_EQ(as_written.checks[1].refs, (std::vector<std::string>{"Prop. 3", "Fig. 1"}));
  EXPECT_EQ(as_written.checks[1].substitute, "T = inf instead of T = 100");
  EXPECT_EQ(as_written.checks[1].index, 2u);
  EXPECT_EQ(load_sweep(f, "quick").reduced, "quick profile");
  EXPECT_EQ(load_sweep(f, "big").reduced, "still small");
  EXPECT_EQ(load_sweep(f, "", {"d=16"}).reduced, "d up to 64 instead of 4096");
  write("t.toml", "measure = \"memory.error\"\n[grid]\nd = [8, 16]\n");
  const std::string g = (dir_ / "p" / "t.toml").string();
  EXPECT_EQ(load_sweep(g).reduced, "");
  EXPECT_EQ(load_sweep(g, "quick").reduced, "");  // no quick table: run as written, the paper's setting
  EXPECT_EQ(load_sweep(g, "", {"runs=2"}).reduced, "changed by --set runs=2");
  write("u.toml", std::string("measure = \"memory.error\"\n[grid]\nd = [8]\n[[check]]\nclaim = \"c\"\nsubstitute = \"\"\n") +
                      "below = { x = \"d\", y = \"error\", bound = \"1\" }\n");
  EXPECT_THROW(load_sweep((dir_ / "p" / "u.toml").string()), InputError);
}

CheckResult result(std::size_t index, bool passed, std::string reduced = "", std::string substitute = "",
                   std::string known = "") {
  CheckResult r;
  r.index = index;
  r.passed = passed;
  r.reduced = std::move(reduced);
  r.substitute = std::move(substitute);
  r.known_failure = std::move(known);
  r.measured = "slope -0.5";
  return r;
}

TEST(CheckCategory, PassesSayAtWhichScaleAndFailuresAreNotReproduced) {
  EXPECT_STREQ(result(1, true).category(), "reproduced");
  EXPECT_STREQ(result(1, true, "quick profile").category(), "reduced");
  EXPECT_STREQ(result(1, true, "", "other T").category(), "substitute");
  EXPECT_STREQ(result(1, true, "quick profile", "other T").category(), "substitute");
  EXPECT_STREQ(result(1, false).category(), "not reproduced");
  EXPECT_STREQ(result(1, false, "", "", "known").category(), "not reproduced");
  EXPECT_EQ(result(1, true, "", "other T").line().find("PASS  (substitute) "), 0u);
}

TEST_F(ClaimsTest, IndexIsConsistentWithTheSweepFiles) {
  write("s.toml", kSweep);
  write("claims.toml", "paper = \"A (2024)\"\n[[item]]\nid = \"Prop. 3\"\nclaim = \"decay\"\n"
                       "[[item]]\nid = \"Fig. 1\"\nclaim = \"picture\"\n"
                       "[[item]]\nid = \"Lemma 2\"\nclaim = \"proof device\"\nnot_checked = \"no observable\"\n");
  const ClaimsIndex index = load_claims(dir_.string(), "p");
  ASSERT_EQ(index.items.size(), 3u);
  EXPECT_EQ(index.checks.at("Prop. 3").size(), 2u);
  EXPECT_EQ(index.checks.at("Fig. 1").front().name(), "s #2");

  // Statuses: a failure wins, then the paper's setting, then a reduced scale; a substitute alone is
  // never "reproduced"; an item whose checks did not run in this profile says so.
  std::map<std::string, std::vector<CheckResult>> run = {{"s", {result(1, true), result(2, true, "", "T")}}};
  auto st = item_statuses(index, run);
  EXPECT_EQ(st[0].category, "reproduced");
  EXPECT_EQ(st[1].category, "substitute");
  EXPECT_EQ(st[2].category, "not checked");
  EXPECT_EQ(st[2].text, "not checked (no observable)");
  run["s"] = {result(1, true, "quick profile"), result(2, false, "", "T", "too small")};
  st = item_statuses(index, run);
  EXPECT_EQ(st[0].category, "reduced");  // the substitute's failure does not undo it
  EXPECT_EQ(st[1].category, "not reproduced");
  EXPECT_NE(st[1].text.find("slope -0.5"), std::string::npos) << st[1].text;
  EXPECT_NE(st[1].text.find("too small"), std::string::npos) << st[1].text;
  run["s"] = {result(1, false, "quick profile"), result(2, true, "", "T")};
  EXPECT_EQ(item_statuses(index, run)[0].category, "not reproduced");
  // A failing substitute does not undo a pass at the item's own setting; alone, it is a failure.
  run["s"] = {result(1, true), result(2, false, "", "T")};
  st = item_statuses(index, run);
  EXPECT_EQ(st[0].category, "reproduced");
  EXPECT_EQ(st[1].category, "not reproduced");
  EXPECT_EQ(st[1].text.rfind("not reproduced (substitute measured: slope -0.5", 0), 0u) << st[1].text;
  // A check that passes but is no evidence (no plausible wrong model fails it) shows nothing: its
  // item is not checked, with the reason; when it fails, the claim is not reproduced all the same.
  CheckResult weak = result(1, true);
  weak.not_evidence = "a tenth of the interference stays above the bound";
  EXPECT_STREQ(weak.category(), "not evidence");
  EXPECT_EQ(weak.line().find("PASS  (not evidence) "), 0u) << weak.line();
  run["s"] = {weak};
  st = item_statuses(index, run);
  EXPECT_EQ(st[0].category, "not checked");
  EXPECT_EQ(st[0].text, "not checked (its checks pass but are no evidence: a tenth of the interference stays above the bound)");
  weak.passed = false;
  run["s"] = {weak};
  EXPECT_EQ(item_statuses(index, run)[0].category, "not reproduced");
  run["s"] = {result(1, true, "quick profile")};
  st = item_statuses(index, run);
  EXPECT_EQ(st[0].text, "reproduced at reduced scale (quick profile)");
  EXPECT_EQ(st[1].category, "none");
  EXPECT_EQ(item_counts(st), "0 reproduced at the paper's setting, 1 at reduced scale, 0 substitute only, "
                             "0 not reproduced, 1 not checked, 1 with no check in this profile (of 3 items)");

  // CLAIMS.md: the table round-trips through compare (categories, not numbers), and a changed
  // status or a missing item is a difference.
  const std::string md = claims_markdown(index, {"quick profile"}, {st});
  EXPECT_EQ(compare_claims_markdown(md, md, {"quick profile"}), "");
  auto other = st;
  other[0] = {"not reproduced", "not reproduced (measured: slope 3)"};
  EXPECT_NE(compare_claims_markdown(md, claims_markdown(index, {"quick profile"}, {other}), {"quick profile"}), "");
  EXPECT_EQ(compare_claims_markdown(md, claims_markdown(index, {"quick profile"}, {other}), {}), "");
  const auto kept = column_from_markdown(md, index, "quick profile", std::vector<ItemStatus>(3, {"not run", "not run"}));
  EXPECT_EQ(kept[0].text, st[0].text);
  EXPECT_EQ(kept[2].category, "not run");  // not_checked comes from the index, not from the old file
}

TEST_F(ClaimsTest, InconsistentIndexesAreRefused) {
  write("s.toml", kSweep);
  // Fig. 1 missing from the index.
  write("claims.toml", "paper = \"A\"\n[[item]]\nid = \"Prop. 3\"\nclaim = \"decay\"\n");
  EXPECT_THROW(load_claims(dir_.string(), "p"), InputError);
  // An item neither checked nor said not_checked.
  write("claims.toml", "paper = \"A\"\n[[item]]\nid = \"Prop. 3\"\nclaim = \"x\"\n[[item]]\nid = \"Fig. 1\"\nclaim = \"y\"\n"
                       "[[item]]\nid = \"Thm. 2\"\nclaim = \"z\"\n");
  EXPECT_THROW(load_claims(dir_.string(), "p"), InputError);
  // Checked and said not_checked.
  write("claims.toml", "paper = \"A\"\n[[item]]\nid = \"Prop. 3\"\nclaim = \"x\"\nnot_checked = \"no\"\n"
                       "[[item]]\nid = \"Fig. 1\"\nclaim = \"y\"\n");
  EXPECT_THROW(load_claims(dir_.string(), "p"), InputError);
  // Duplicate ids.
  write("claims.toml", "paper = \"A\"\n[[item]]\nid = \"Prop. 3\"\nclaim = \"x\"\n[[item]]\nid = \"Prop. 3\"\nclaim = \"y\"\n");
  EXPECT_THROW(load_claims(dir_.string(), "p"), InputError);
  // A check without ref.
  write("v.toml", "measure = \"memory.error\"\n[grid]\nd = [8]\n[[check]]\nclaim = \"c\"\n"
                  "below = { x = \"d\", y = \"error\", bound = \"1\" }\n");
  write("claims.toml", "paper = \"A\"\n[[item]]\nid = \"Prop. 3\"\nclaim = \"x\"\n[[item]]\nid = \"Fig. 1\"\nclaim = \"y\"\n");
  EXPECT_THROW(load_claims(dir_.string(), "p"), InputError);
  // A check counted as evidence (no substitute, no known failure) without a counterfactual; a known
  // failure or a substitute needs none.
  write("v.toml", "measure = \"memory.error\"\n[grid]\nd = [8]\n[[check]]\nclaim = \"c\"\nref = \"Fig. 1\"\n"
                  "below = { x = \"d\", y = \"error\", bound = \"1\" }\n");
  try {
    load_claims(dir_.string(), "p");
    ADD_FAILURE() << "a check without counterfactual was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("v.toml: [[check]] #1 counts as evidence but names no counterfactual"),
              std::string::npos) << e.what();
  }
  write("v.toml", "measure = \"memory.error\"\n[grid]\nd = [8]\n[[check]]\nclaim = \"c\"\nref = \"Fig. 1\"\n"
                  "known_failure = \"measured 2\"\nbelow = { x = \"d\", y = \"error\", bound = \"1\" }\n");
  EXPECT_NO_THROW(load_claims(dir_.string(), "p"));
}

// A paper profile run in parts: an item whose sweeps have no results in the folder is "not run",
// and claims.toml's [plan] gives it the cost a --plan run measured; a plan naming no sweep is refused.
TEST_F(ClaimsTest, ItemsOfSweepsNotRunCarryTheirPlannedCost) {
  write("s.toml", kSweep);
  write("t.toml", "measure = \"memory.error\"\n[grid]\nd = [8]\n[[check]]\nclaim = \"c\"\nref = \"Thm. 2\"\n"
                  "known_failure = \"measured 2\"\nbelow = { x = \"d\", y = \"error\", bound = \"1\" }\n");
  const std::string items = "[[item]]\nid = \"Prop. 3\"\nclaim = \"decay\"\n[[item]]\nid = \"Fig. 1\"\nclaim = \"p\"\n"
                            "[[item]]\nid = \"Thm. 2\"\nclaim = \"t\"\n";
  write("claims.toml", "paper = \"A\"\n[plan]\ncommand = \"`scalinglab reproduce p --plan`\"\n"
                       "cpu_hours = { t = \">= 50\" }\n" + items);
  const ClaimsIndex index = load_claims(dir_.string(), "p");
  EXPECT_EQ(index.planned_cpu_hours.at("t"), ">= 50");
  std::map<std::string, std::vector<CheckResult>> run = {{"s", {result(1, true), result(2, true, "", "T")}}};
  auto st = item_statuses(index, run);
  EXPECT_EQ(st[0].category, "reproduced");
  EXPECT_EQ(st[2].category, "not run");  // t.toml has no checks.json here: not "no check in this profile"
  add_planned_cost(index, st);
  EXPECT_EQ(st[2].text, "not run (--plan: t >= 50 CPU-hours)");
  EXPECT_EQ(st[0].text, "reproduced at the paper's setting");  // a run item keeps its status
  const std::string md = claims_markdown(index, {"paper profile"}, {st});
  EXPECT_NE(md.find("measured by `scalinglab reproduce p --plan`."), std::string::npos) << md;
  EXPECT_EQ(compare_claims_markdown(md, md, {"paper profile"}), "");

  write("claims.toml", "paper = \"A\"\n[plan]\ncommand = \"x\"\ncpu_hours = { u = \"3\" }\n" + items);
  EXPECT_THROW(load_claims(dir_.string(), "p"), InputError);  // u is not a sweep of the folder
  write("claims.toml", "paper = \"A\"\n[plan]\ncommand = \"x\"\n" + items);
  EXPECT_THROW(load_claims(dir_.string(), "p"), InputError);  // no cpu_hours
  write("claims.toml", "paper = \"A\"\n[plan]\ncommand = \"x\"\ncpu_hours = { t = \"3\" }\nwall = 2\n" + items);
  EXPECT_THROW(load_claims(dir_.string(), "p"), InputError);  // unknown key
}

// The papers' own indexes: consistent with their sweep files, and CLAIMS.md lists the same items and
// checks (its statuses are compared with fresh runs by the reproduce tests of ctest).
// The paper's order: numbers inside names compare as numbers (a byte-wise sort puts fig10 before
// fig3), and a folder's sweep files come in that order.
TEST(NaturalOrder, NumbersCompareByValue) {
  EXPECT_TRUE(natural_less("fig3-left", "fig10"));
  EXPECT_FALSE(natural_less("fig10", "fig3-left"));
  EXPECT_TRUE(natural_less("fig1-left", "fig1-right"));
  EXPECT_TRUE(natural_less("fig9", "fig9-embeddings"));
  EXPECT_TRUE(natural_less("prop2-3", "prop5"));
  EXPECT_TRUE(natural_less("fig3", "fig03"));  // same value: the shorter run first, never equal
  EXPECT_FALSE(natural_less("fig3", "fig3"));
  EXPECT_TRUE(natural_less("a99999999999999999999999", "a100000000000000000000000"));  // no overflow
  EXPECT_TRUE(natural_less("fig", "fig1"));
}

TEST_F(ClaimsTest, SweepFilesComeInThePapersOrder) {
  for (const char* name : {"fig10.toml", "fig3-right.toml", "fig1-left.toml", "prop1.toml", "fig3-left.toml", "claims.toml",
                           "fig10-curves.toml"})
    write(name, kSweep);
  std::vector<std::string> names;
  for (const auto& f : paper_sweep_files((dir_ / "p").string())) names.push_back(fs::path(f).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"fig1-left.toml", "fig3-left.toml", "fig3-right.toml", "fig10.toml",
                                             "fig10-curves.toml", "prop1.toml"}));
}

// Whether a wrong model ran is a result, not a declaration: a table without runs matches one with
// them, but a different wrong model is a difference.
TEST(ClaimsCompare, WrongModelOutcomesAreResultsTheModelsAreDeclarations) {
  const auto table = [](const std::string& checks) {
    return "| item | claim | quick profile | checks |\n|---|---|---|---|\n| Fig. 1 | a claim | not run | " + checks + " |\n";
  };
  const std::string ran = table("fig1 #1 (rejects alpha=4), fig1 #2 (does not reject P=8)");
  EXPECT_EQ(compare_claims_markdown(ran, table("fig1 #1 (declared, not run: alpha=4), fig1 #2 (declared, not run: P=8)"), {}), "");
  EXPECT_NE(compare_claims_markdown(ran, table("fig1 #1 (declared, not run: alpha=3), fig1 #2 (declared, not run: P=8)"), {}), "");
  EXPECT_NE(compare_claims_markdown(ran, table("fig1 #1 (rejects alpha=4)"), {}), "");
}

TEST(PaperClaims, EveryPaperHasAConsistentIndexAndClaimsTable) {
  const std::string experiments = std::string(SCALINGLAB_SOURCE_DIR) + "/experiments";
  for (const std::string paper : {"cabannes2023", "arnal2024", "jeonvanroy2024", "ldpc2024"}) {
    SCOPED_TRACE(paper);
    ClaimsIndex index;
    ASSERT_NO_THROW(index = load_claims(experiments, paper));
    const std::string path = experiments + "/" + paper + "/CLAIMS.md";
    ASSERT_TRUE(fs::exists(path)) << "generate it: scalinglab claims " << paper << " --write " << path;
    const std::vector<std::vector<ItemStatus>> none(2, std::vector<ItemStatus>(index.items.size(), {"not run", "not run"}));
    const std::string fresh = claims_markdown(index, {"quick profile", "paper profile"}, none);
    EXPECT_EQ(compare_claims_markdown(read_file(path, 16 << 20, "claims table"), fresh, {}), "");
  }
}

// `claims --json`: every item of the index with its checks and a status per profile (no run given:
// "not run" or "not checked"); an index that disagrees with the sweep files exits 2.
TEST(ClaimsCli, JsonListsEveryItem) {
  const std::string experiments = std::string(SCALINGLAB_SOURCE_DIR) + "/experiments";
  using testing::run_cli_args;
  const testing::CliOutcome o = run_cli_args({"claims", "ldpc2024", "--json", "--experiments", experiments});
  ASSERT_EQ(o.status, 0) << o.out;
  const auto j = nlohmann::json::parse(o.out);
  const ClaimsIndex index = load_claims(experiments, "ldpc2024");
  ASSERT_EQ(j.at("items").size(), index.items.size());
  for (const auto& item : j.at("items")) {
    const std::string cat = item.at("quick profile").at("category");
    EXPECT_EQ(cat, item.at("checks").empty() ? "not checked" : "not run") << item.dump();
  }
  EXPECT_EQ(run_cli_args({"claims", "nope", "--experiments", experiments}).status, 2);
}

}  // namespace
}  // namespace scalinglab
