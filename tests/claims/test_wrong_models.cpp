// The wrong models of the papers' checks are plausible ones (docs/checks.md): a counterfactual that
// sets a learning rate to 0, or a size below the smallest value the paper's own setting runs, breaks
// every learner rather than the claim's mechanism, so it must say in `below_paper` why it is still a
// wrong model a lab could have built. And an ordering counted as evidence claims an order, not a tie:
// every `ordered` or `equal_compute` check without a factor margin asks for a significant difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include "scalinglab/core/file_io.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/lab/param.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

std::vector<fs::path> paper_sweep_files() {
  std::vector<fs::path> out;
  for (const char* paper : {"cabannes2023", "arnal2024", "jeonvanroy2024", "ldpc2024"})
    for (const auto& e : fs::directory_iterator(fs::path(SCALINGLAB_SOURCE_DIR) / "experiments" / paper))
      if (e.path().extension() == ".toml" && e.path().filename() != "claims.toml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool is_learning_rate(const std::string& name) {
  return name == "lr" || name.rfind("lr_", 0) == 0 || (name.size() > 3 && name.compare(name.size() - 3, 3, "_lr") == 0);
}

// The smallest numeric value `name` takes in the sweep (fixed, on a grid axis, or in a part): what the
// paper's setting runs. Formulas are left out (their values depend on the point); NaN when none.
double smallest_value(const Sweep& s, const std::string& name) {
  double lo = std::numeric_limits<double>::quiet_NaN();
  auto see = [&](const std::string& text) {
    if (const auto v = parse_number(text)) lo = std::isnan(lo) ? *v : std::min(lo, *v);
  };
  if (const auto it = s.fixed.find(name); it != s.fixed.end()) see(it->second);
  for (const auto& axis : s.grid) {
    if (axis.name == name)
      for (const auto& v : axis.values) see(v);
    for (const auto& linked : axis.linked)
      if (const auto it = linked.find(name); it != linked.end()) see(it->second);
  }
  for (const auto& part : s.parts)
    if (const auto it = part.fixed.find(name); it != part.fixed.end()) see(it->second);
  return lo;
}

const ParamSpec* spec_of(const Sweep& s, const std::string& name) {
  const Registry& registry = world_registry();
  std::vector<std::string> measures = {s.measure};
  for (const auto& p : s.parts) measures.push_back(p.measure);
  for (const auto& m : measures)
    for (const auto& p : registry.get(m).params)
      if (p.name == name) return &p;
  return nullptr;
}

TEST(WrongModels, NoStepOfZeroNorSizeBelowThePapersGridWithoutAReason) {
  std::size_t seen = 0;
  std::vector<std::string> unexplained;
  for (const auto& file : paper_sweep_files()) {
    const Sweep paper = load_sweep(file.string(), "paper");
    for (const auto& c : paper.all_checks)
      for (const auto& set : c.counterfactual) {
        ++seen;
        const auto [name, text] = split_assignment(set);
        const auto value = parse_number(text);
        if (!value) continue;  // a formula or a word: no number to compare
        const ParamSpec* spec = spec_of(paper, name);
        ASSERT_NE(spec, nullptr) << file.filename().string() << ": " << set;
        const bool size = spec->type == ParamType::Int || spec->type == ParamType::Count;
        const double lo = smallest_value(paper, name);
        const bool zero_step = is_learning_rate(name) && *value == 0;
        const bool below = size && !std::isnan(lo) && *value < lo;
        if ((zero_step || below) && c.counterfactual_below_paper.empty())
          unexplained.push_back(file.stem().string() + " #" + std::to_string(c.index) + " sets " + set +
                                (zero_step ? " (a step of 0)" : " (the paper's smallest is " + format_number(lo) + ")"));
      }
  }
  EXPECT_GT(seen, 100u);
  std::string list;
  for (const auto& u : unexplained) list += "\n  " + u;
  EXPECT_TRUE(unexplained.empty())
      << "counterfactuals outside the paper's range without counterfactual.below_paper (why it is still a plausible "
         "wrong model):" << list;
}

// The test above must be able to fail: a step of 0 and a size below the grid are caught, a reason clears them.
TEST(WrongModels, TheRuleCatchesAStepOfZeroAndASmallerSize) {
  const auto dir = fs::temp_directory_path() / "scalinglab-wrong-models";
  fs::create_directories(dir);
  const auto write = [&](const std::string& cf) {
    const auto file = dir / "s.toml";
    write_file(file.string(), "measure = \"memory.train\"\nruns = 2\n[params]\nN = 100\n[grid]\nd = [8, 16]\n"
                              "[[check]]\nclaim = \"c\"\nslope = { x = \"d\", y = \"error\", expect = -1, tol = 0.1 }\n"
                              "counterfactual = " + cf + "\n");
    return load_sweep(file.string(), "paper");
  };
  const Sweep zero = write("{ set = \"lr=0\", why = \"w\" }");
  const Sweep small = write("{ set = \"N=20\", why = \"w\" }");
  const Sweep grid = write("{ set = \"d=4\", why = \"w\" }");
  const Sweep explained = write("{ set = \"N=20\", why = \"w\", below_paper = \"because\" }");
  EXPECT_TRUE(is_learning_rate("lr") && *parse_number(split_assignment(zero.all_checks[0].counterfactual[0]).second) == 0);
  EXPECT_LT(20, smallest_value(small, "N"));
  EXPECT_LT(4, smallest_value(grid, "d"));
  EXPECT_EQ(explained.all_checks[0].counterfactual_below_paper, "because");
  fs::remove_all(dir);
}

TEST(WrongModels, OrdersAskForAMarginNotATie) {
  std::vector<std::string> ties;
  for (const auto& file : paper_sweep_files())
    for (const auto& c : load_sweep(file.string()).all_checks)
      if ((c.kind == "ordered" || c.kind == "equal_compute") && c.factor == 1 && !(c.significant > 0) &&
          c.substitute.empty() && c.known_failure.empty() && c.not_evidence.empty())  // counted as evidence
        ties.push_back(file.stem().string() + " #" + std::to_string(c.index));
  std::string list;
  for (const auto& t : ties) list += " " + t;
  EXPECT_TRUE(ties.empty()) << "orderings that pass on ties (give significant = k, or a factor):" << list;
}

}  // namespace
}  // namespace scalinglab
