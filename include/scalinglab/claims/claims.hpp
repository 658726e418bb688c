#pragma once
// A paper's claims: the index of its numbered results and figures (experiments/PAPER/claims.toml),
// the checks of its sweep files that test each one (their `ref`), and each item's status in a
// reproduce run. CLAIMS.md is the table of items x profiles (docs/checks.md).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scalinglab/claims/check.hpp"
#include "scalinglab/claims/counterfactual.hpp"

namespace scalinglab {

// One numbered result or figure of the paper.
struct ClaimItem {
  std::string id;           // "Thm. 1", "Fig. 4", "Lemma A.4"
  std::string claim;        // what the paper states, in one sentence
  std::string not_checked;  // why no check tests it ("" when some check does)
};

// A check of a sweep file, named "stem #k" (k: its position among the file's [[check]] tables).
struct CheckRef {
  std::string sweep;
  std::size_t index = 0;
  std::string claim;
  std::vector<std::string> profiles;  // as in the file (empty: every profile)
  std::string substitute;
  std::string known_failure;
  std::vector<std::string> counterfactual;  // the --set overrides of the wrong model it must reject
  std::string counterfactual_why;
  std::string not_evidence;  // why no plausible wrong model makes it fail ("": counted as evidence)
  std::string name() const { return sweep + " #" + std::to_string(index); }
};

struct ClaimsIndex {
  std::string paper;     // folder name, e.g. "cabannes2023"
  std::string citation;  // "Authors (year), Title, venue"
  std::vector<ClaimItem> items;
  std::map<std::string, std::vector<CheckRef>> checks;  // item id -> the checks that test it
  // The paper profile's cost where it is not run here, as measured by `plan_command` (how the
  // --plan runs were made, markdown):
  // sweep stem -> its CPU-hours in words (">= 50", "336").
  std::string plan_command;
  std::map<std::string, std::string> planned_cpu_hours;
};

// The sweep files of a paper's folder in the paper's order (every *.toml but claims.toml, the
// index): names compared with their numbers read as numbers, so fig3 comes before fig10.
std::vector<std::string> paper_sweep_files(const std::string& dir);

// "fig3-left" < "fig10": runs of digits compare by value (then by length, so "fig03" and "fig3"
// still differ), everything else byte by byte.
bool natural_less(const std::string& a, const std::string& b);

// A markdown table cell of a claims table: markdown_text (core/text_escape.hpp), which the table's
// readers (column_from_markdown, counterfactuals_from_markdown, compare_claims_markdown) undo.
std::string markdown_cell(const std::string& s);

// Reads experiments/PAPER/claims.toml and every sweep file of the folder. Throws InputError when
// the index is malformed, a check has no `ref` or names an unknown item, an item has both checks and
// `not_checked`, or an item has neither.
ClaimsIndex load_claims(const std::string& experiments_dir, const std::string& paper);

// An item's status in one run: "reproduced at the paper's setting", "reproduced at reduced scale",
// "substitute only", "not reproduced (measured ...)", "not checked (why)", "no check in this profile",
// or "not run".
struct ItemStatus {
  std::string category;  // "reproduced", "reduced", "substitute", "not reproduced", "not checked", "none", "not run"
  std::string text;      // the category in words, with the measured value of a failure
};

// Statuses of every item from the check results of one run: sweep stem -> its results.
std::vector<ItemStatus> item_statuses(const ClaimsIndex& index,
                                      const std::map<std::string, std::vector<CheckResult>>& results);

// The check results of a reproduce folder (OUT/<stem>/checks.json of every sweep); std::nullopt when
// the folder holds no checks.json at all.
std::optional<std::map<std::string, std::vector<CheckResult>>> read_check_results(const ClaimsIndex& index,
                                                                                  const std::string& dir);

// The paper profile's column with the planned cost of what it did not run: "not run (--plan: fig9 336
// CPU-hours)" for an item whose checks' sweeps have a planned cost in claims.toml's [plan].
void add_planned_cost(const ClaimsIndex& index, std::vector<ItemStatus>& statuses);

// Counts of items per category, in words: "3 reproduced at the paper's setting, 1 at reduced scale, ...".
std::string item_counts(const std::vector<ItemStatus>& statuses);

// Counts of the wrong models the index declares, in words: "41 declared: 38 rejected at every seed,
// 1 accepted, 2 declared, not run".
std::string counterfactual_counts(const ClaimsIndex& index, const std::vector<CounterfactualResult>& counterfactuals);

// CLAIMS.md: one row per item with its status in each run (column label -> statuses; a run not given
// is "not run"), then one row per check that declares a counterfactual: its overrides, why, its
// verdict over the seeds with the smallest margin, and what the check measured on it (from
// `counterfactuals`, the results of every profile run; "declared, not run" when absent, with the
// planned cost of its sweep when claims.toml's [plan] has one).
std::string claims_markdown(const ClaimsIndex& index, const std::vector<std::string>& columns,
                            const std::vector<std::vector<ItemStatus>>& statuses,
                            const std::vector<CounterfactualResult>& counterfactuals = {});

// The counterfactual results an existing CLAIMS.md shows (its "measured on it" column), to keep them
// when the table is regenerated without a counterfactuals run.
std::vector<CounterfactualResult> counterfactuals_from_markdown(const std::string& md);

// The statuses of one column of an existing CLAIMS.md, matched to the index's items by id (an item
// the file lacks gets `fallback`'s status). Keeps a column of a run not repeated when regenerating.
std::vector<ItemStatus> column_from_markdown(const std::string& md, const ClaimsIndex& index, const std::string& column,
                                             const std::vector<ItemStatus>& fallback);

// Compares a CLAIMS.md against a fresh table: the same items, checks and, for the columns given,
// the same categories (not the measured numbers, which may differ in the last digit across machines).
// Returns the differences, one per line ("" when they agree).
std::string compare_claims_markdown(const std::string& committed, const std::string& fresh,
                                    const std::vector<std::string>& columns);

}  // namespace scalinglab
