#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "scalinglab/claims/claims.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/run/report.hpp"

namespace scalinglab::cli {

namespace {

bool fs_exists(const std::string& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

struct ClaimsOptions {
  std::string paper, quick_dir, paper_dir, write, verify, experiments;
  std::vector<std::string> counterfactuals_dirs;
  bool json = false;
};

// The table as JSON: per item its id, claim, checks ("fig4 #2") and status in each profile.
nlohmann::json claims_json(const ClaimsIndex& index, const std::vector<std::string>& columns,
                           const std::vector<std::vector<ItemStatus>>& statuses) {
  nlohmann::json items = nlohmann::json::array();
  for (std::size_t i = 0; i < index.items.size(); ++i) {
    const auto& item = index.items[i];
    nlohmann::json checks = nlohmann::json::array();
    if (const auto it = index.checks.find(item.id); it != index.checks.end())
      for (const auto& r : it->second) checks.push_back({{"check", r.name()}, {"substitute", !r.substitute.empty()}});
    nlohmann::json j = {{"id", item.id}, {"claim", item.claim}, {"checks", checks}};
    for (std::size_t c = 0; c < columns.size(); ++c)
      j[columns[c]] = {{"category", statuses[c][i].category}, {"status", statuses[c][i].text}};
    items.push_back(std::move(j));
  }
  nlohmann::json counts;
  for (std::size_t c = 0; c < columns.size(); ++c) counts[columns[c]] = item_counts(statuses[c]);
  return {{"paper", index.paper}, {"citation", index.citation}, {"counts", counts}, {"items", items}};
}

}  // namespace

void add_claims(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "claims", "The table of a paper's claims (experiments/PAPER/CLAIMS.md): every item of its claims.toml,\n"
                "the checks that test it and its status in reproduce runs. Exit 2 when the index and the sweep\n"
                "files disagree (a check without ref, an item neither checked nor said not_checked);\n"
                "with --verify, 1 when FILE differs from the fresh table.");
  auto o = std::make_shared<ClaimsOptions>();
  cmd->add_option("paper", o->paper, "paper folder under experiments/, e.g. cabannes2023")->required();
  cmd->add_option("--quick", o->quick_dir, "output folder of `reproduce PAPER --profile quick`");
  cmd->add_option("--paper", o->paper_dir, "output folder of `reproduce PAPER --profile paper`");
  cmd->add_option("--counterfactuals", o->counterfactuals_dirs,
                  "output folder of `counterfactuals PAPER` (repeat for its runs at several profiles): each check's "
                  "verdict on its wrong model over the seeds; results of a profile not given are kept from --write's file");
  cmd->add_option("--write", o->write, "write the table to FILE (e.g. experiments/PAPER/CLAIMS.md) instead of printing it");
  cmd->add_option("--verify", o->verify,
                  "compare FILE with the fresh table: items, checks, and the status of the profiles given");
  cmd->add_flag("--json", o->json, "print the table as JSON (items, checks, status per profile) instead of markdown");
  cmd->add_option("--experiments", o->experiments, "experiments folder (default: ./experiments, else the source tree's)");
  cmd->callback([&action, o] {
    action = [o] {
      const std::string experiments = find_experiments_dir(o->experiments);
      if (!is_plain_name(o->paper)) throw InputError("paper '" + o->paper + "': a plain folder name such as cabannes2023");
      const ClaimsIndex index = load_claims(experiments, o->paper);
      std::vector<std::string> columns = {"quick profile", "paper profile"};
      std::vector<std::vector<ItemStatus>> statuses;
      std::vector<std::string> given;
      for (std::size_t c = 0; c < 2; ++c) {
        const std::string& dir = c == 0 ? o->quick_dir : o->paper_dir;
        std::vector<ItemStatus> col;
        if (!dir.empty()) {
          const auto results = read_check_results(index, dir);
          if (!results) throw InputError(dir + ": no checks.json of " + o->paper + "'s sweeps (not a reproduce folder?)");
          col = item_statuses(index, *results);
          given.push_back(columns[c]);
        } else {
          for (const auto& item : index.items)
            col.push_back(item.not_checked.empty() ? ItemStatus{"not run", "not run"}
                                                   : ItemStatus{"not checked", "not checked (" + item.not_checked + ")"});
        }
        statuses.push_back(std::move(col));
      }
      std::vector<CounterfactualResult> counterfactuals, fresh;
      for (const auto& dir : o->counterfactuals_dirs) {
        auto got = read_counterfactuals(dir);
        if (got.empty()) throw InputError(dir + ": no counterfactuals.json (not a `counterfactuals` folder?)");
        fresh.insert(fresh.end(), got.begin(), got.end());
      }
      // A column whose run is not given keeps what the file being written says (its last run); so do
      // the wrong models' results of the profiles not given.
      if (!o->write.empty() && fs_exists(o->write)) {
        const std::string old = read_file(o->write, 16 << 20, "claims table");
        for (std::size_t c = 0; c < 2; ++c)
          if ((c == 0 ? o->quick_dir : o->paper_dir).empty())
            statuses[c] = column_from_markdown(old, index, columns[c], statuses[c]);
        counterfactuals = counterfactuals_from_markdown(old);
      } else if (!o->verify.empty() && fs_exists(o->verify)) {
        // The file verified keeps its wrong models' verdicts unless runs are given to compare.
        counterfactuals = counterfactuals_from_markdown(read_file(o->verify, 16 << 20, "claims table"));
      }
      for (const auto& f : fresh)
        counterfactuals.erase(std::remove_if(counterfactuals.begin(), counterfactuals.end(),
                                             [&](const CounterfactualResult& c) {
                                               return c.sweep == f.sweep && c.index == f.index && c.profile == f.profile;
                                             }),
                              counterfactuals.end());
      counterfactuals.insert(counterfactuals.end(), fresh.begin(), fresh.end());
      add_planned_cost(index, statuses[1]);  // the paper column's rows not run: their planned cost
      const std::string md = claims_markdown(index, columns, statuses, counterfactuals);
      if (!o->verify.empty()) {
        const std::string diff = compare_claims_markdown(read_file(o->verify, 16 << 20, "claims table"), md, given);
        if (!diff.empty()) {
          std::fprintf(stderr, "%s differs from the fresh table (regenerate it with `scalinglab claims %s --write`):\n%s",
                       terminal_text(o->verify).c_str(), terminal_text(o->paper).c_str(), terminal_text(diff).c_str());
          return 1;
        }
        std::printf("%s agrees with the fresh table (%zu items; statuses compared: %s)\n", o->verify.c_str(),
                    index.items.size(), given.empty() ? "none" : (given.size() == 2 ? "quick and paper profiles" : given[0].c_str()));
        return 0;
      }
      if (o->json) {
        std::printf("%s\n", claims_json(index, columns, statuses).dump(2).c_str());
      } else if (!o->write.empty()) {
        write_file(o->write, md);
        std::printf("wrote %s (%zu items)\n", o->write.c_str(), index.items.size());
      } else {
        std::fwrite(md.data(), 1, md.size(), stdout);
      }
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
