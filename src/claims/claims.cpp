// The claims index of a paper and the status of each item. An item's status in a run follows from
// the checks that test it (their `ref`) and that apply under the run's profile: one failure at the
// item's own setting makes it "not reproduced" (a substitute's, only when nothing else applied);
// otherwise one check passed at the paper's own setting makes it "reproduced at the paper's
// setting", then one at a reduced scale "reproduced at reduced scale"; a substitute check (another
// setting than the paper's) never counts as reproducing it.
#include "scalinglab/claims/claims.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "scalinglab/claims/margin.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace fs = std::filesystem;

namespace scalinglab {

namespace {

constexpr std::size_t kMaxIndexBytes = 1 << 20;

std::string text_of(const toml::node* n, const std::string& where) {
  const auto v = n ? n->value<std::string>() : std::nullopt;
  if (!v) throw InputError(where + ": expected a string");
  return *v;
}

std::string category_words(const std::string& category) {
  if (category == "reproduced") return "reproduced at the paper's setting";
  if (category == "reduced") return "reproduced at reduced scale";
  if (category == "substitute") return "substitute only";
  if (category == "not reproduced") return "not reproduced";
  if (category == "not checked") return "not checked";
  if (category == "none") return "no check in this profile";
  return "not run";
}

// The category a status text starts with (the words before any parenthesis).
std::string category_of_text(const std::string& text) {
  for (const char* c : {"reproduced", "reduced", "substitute", "not reproduced", "not checked", "none", "not run"}) {
    const std::string w = category_words(c);
    if (text.compare(0, w.size(), w) == 0) return c;
  }
  return "?";
}

std::string join_text(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string shorten(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return s.substr(0, cut) + "...";
}

// The cells of a table row as markdown_cell wrote them, unescaped (a pipe after a backslash is
// part of its cell).
std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      cur += line[i];
      cur += line[++i];
    } else if (line[i] == '|') {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  for (auto& c : cells) {
    const auto b = c.find_first_not_of(' ');
    const auto e = c.find_last_not_of(' ');
    c = b == std::string::npos ? "" : markdown_unescape(std::string_view(c).substr(b, e - b + 1));
  }
  return cells;
}

// The item rows of a CLAIMS.md: header cells, then each row's cells.
std::pair<std::vector<std::string>, std::vector<std::vector<std::string>>> table_rows(const std::string& md) {
  std::istringstream in(md);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    if (line.rfind("| item |", 0) == 0) {
      header = split_row(line);
    } else if (!header.empty() && line.rfind("| ", 0) == 0) {
      rows.push_back(split_row(line));
    } else if (!header.empty() && line.rfind("|---", 0) != 0) {
      if (!rows.empty()) break;
    }
  }
  return {header, rows};
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      // Compare values without overflow: strip leading zeros, then the longer run is larger.
      std::size_t zi = i, zj = j;
      while (zi + 1 < ei && a[zi] == '0') ++zi;
      while (zj + 1 < ej && b[zj] == '0') ++zj;
      if (ei - zi != ej - zj) return ei - zi < ej - zj;
      const int c = a.compare(zi, ei - zi, b, zj, ej - zj);
      if (c != 0) return c < 0;
      if (ei - i != ej - j) return ei - i < ej - j;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::vector<std::string> paper_sweep_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".toml" && e.path().filename() != "claims.toml")
      out.push_back(e.path().string());
  // By stem, so that fig7 comes before fig7-curves (".toml" would sort after "-").
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return natural_less(fs::path(a).stem().string(), fs::path(b).stem().string());
  });
  return out;
}

std::string markdown_cell(const std::string& s) { return markdown_text(s); }

ClaimsIndex load_claims(const std::string& experiments_dir, const std::string& paper) {
  const fs::path dir = fs::path(experiments_dir) / paper;
  const fs::path file = dir / "claims.toml";
  ClaimsIndex index;
  index.paper = paper;
  toml::table doc;
  try {
    doc = toml::parse(read_file(file.string(), kMaxIndexBytes, "claims index"), file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(file.string() + ": " + std::string(e.description()));
  }
  for (const auto& [k, v] : doc)
    if (k != "paper" && k != "item" && k != "plan")
      throw InputError(file.string() + ": unknown key '" + std::string(k.str()) + "' (paper, item, plan)");
  index.citation = text_of(doc.get("paper"), file.string() + ": paper");
  std::map<std::string, std::string> planned;
  if (const auto* plan = doc.get("plan")) {
    const std::string where = file.string() + ": [plan]";
    const auto* t = plan->as_table();
    if (!t) throw InputError(where + ": expected a table (command, cpu_hours)");
    for (const auto& [k, v] : *t)
      if (k != "command" && k != "cpu_hours") throw InputError(where + ": unknown key '" + std::string(k.str()) + "' (command, cpu_hours)");
    index.plan_command = text_of(t->get("command"), where + " command");
    const auto* hours = t->get("cpu_hours") ? t->get("cpu_hours")->as_table() : nullptr;
    if (!hours || hours->empty()) throw InputError(where + ": cpu_hours = { stem = \"CPU-hours\", ... } is needed");
    for (const auto& [k, v] : *hours) planned[std::string(k.str())] = text_of(&v, where + " cpu_hours." + std::string(k.str()));
  }
  const auto* items = doc.get("item") ? doc.get("item")->as_array() : nullptr;
  if (!items || items->empty()) throw InputError(file.string() + ": needs [[item]] tables, one per result or figure");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const std::string where = file.string() + ": [[item]] #" + std::to_string(i + 1);
    const auto* t = items->get(i)->as_table();
    if (!t) throw InputError(where + ": expected a table");
    for (const auto& [k, v] : *t)
      if (k != "id" && k != "claim" && k != "not_checked")
        throw InputError(where + ": unknown key '" + std::string(k.str()) + "' (id, claim, not_checked)");
    ClaimItem item{text_of(t->get("id"), where + " id"), text_of(t->get("claim"), where + " claim"), ""};
    if (t->get("not_checked")) {
      item.not_checked = text_of(t->get("not_checked"), where + " not_checked");
      if (item.not_checked.empty()) throw InputError(where + " not_checked: say why it is not checked");
    }
    if (item.id.empty() || !ids.insert(item.id).second)
      throw InputError(where + ": id '" + item.id + "' is empty or used twice");
    index.items.push_back(std::move(item));
  }
  std::set<std::string> stems;
  for (const auto& f : paper_sweep_files(dir.string())) {
    const Sweep s = load_sweep(f);
    stems.insert(s.name);
    for (const auto& c : s.all_checks) {
      const std::string name = s.name + " #" + std::to_string(c.index);
      if (c.substitute.empty() && c.known_failure.empty() && c.not_evidence.empty() && c.counterfactual.empty())
        throw InputError(f + ": [[check]] #" + std::to_string(c.index) +
                         " counts as evidence but names no counterfactual (the wrong model it must reject: "
                         "counterfactual = { set = \"k=v\", why = \"...\" }, docs/checks.md)");
      if (c.refs.empty())
        throw InputError(f + ": [[check]] #" + std::to_string(c.index) +
                         " has no ref (the item of claims.toml it tests, e.g. ref = \"Fig. 4\")");
      for (const auto& id : c.refs) {
        if (!ids.count(id))
          throw InputError(f + ": [[check]] #" + std::to_string(c.index) + " ref '" + id +
                           "' is not an item of " + file.string());
        index.checks[id].push_back({s.name, c.index, c.claim, c.profiles, c.substitute, c.known_failure,
                                    c.counterfactual, c.counterfactual_why, c.not_evidence});
      }
    }
  }
  for (const auto& item : index.items) {
    const bool checked = index.checks.count(item.id) > 0;
    if (checked && !item.not_checked.empty())
      throw InputError(file.string() + ": " + item.id + " says not_checked but " + index.checks.at(item.id).front().name() +
                       " tests it");
    if (!checked && item.not_checked.empty())
      throw InputError(file.string() + ": no check tests " + item.id + ": add one or say why (not_checked = \"...\")");
  }
  for (const auto& [stem, hours] : planned)
    if (!stems.count(stem)) throw InputError(file.string() + ": [plan] cpu_hours names '" + stem + "', not a sweep of " + paper);
  index.planned_cpu_hours = std::move(planned);
  return index;
}

void add_planned_cost(const ClaimsIndex& index, std::vector<ItemStatus>& statuses) {
  for (std::size_t i = 0; i < index.items.size() && i < statuses.size(); ++i) {
    if (statuses[i].category != "not run") continue;
    const auto it = index.checks.find(index.items[i].id);
    if (it == index.checks.end()) continue;
    std::set<std::string> seen;
    std::string cost;
    for (const auto& r : it->second) {
      const auto h = index.planned_cpu_hours.find(r.sweep);
      if (h == index.planned_cpu_hours.end() || !seen.insert(r.sweep).second) continue;
      cost += (cost.empty() ? "" : ", ") + r.sweep + " " + h->second + " CPU-hours";
    }
    if (!cost.empty()) statuses[i].text = "not run (--plan: " + cost + ")";
  }
}

std::vector<ItemStatus> item_statuses(const ClaimsIndex& index,
                                      const std::map<std::string, std::vector<CheckResult>>& results) {
  std::vector<ItemStatus> out;
  for (const auto& item : index.items) {
    if (!item.not_checked.empty()) {
      out.push_back({"not checked", "not checked (" + item.not_checked + ")"});
      continue;
    }
    // A failure of a check at the item's own setting decides; a substitute's failure only when no
    // check at the item's setting applied.
    const CheckResult* failure = nullptr;
    const CheckResult* substitute_failure = nullptr;
    bool reproduced = false, reduced = false, substitute = false, any_run = false;
    std::string reduced_why, no_evidence;
    for (const auto& ref : index.checks.at(item.id)) {
      const auto it = results.find(ref.sweep);
      if (it == results.end()) continue;
      any_run = true;
      for (const auto& r : it->second) {
        if (r.index != ref.index) continue;
        const std::string cat = r.category();
        if (cat == "not reproduced") {
          if (!r.substitute.empty()) {
            if (!substitute_failure) substitute_failure = &r;
          } else if (!failure) {
            failure = &r;
          }
        } else if (cat == "reproduced") {
          reproduced = true;
        } else if (cat == "reduced") {
          reduced = true;
          if (reduced_why.empty()) reduced_why = r.reduced;
        } else if (cat == "not evidence") {
          if (no_evidence.empty()) no_evidence = r.not_evidence;
        } else {
          substitute = true;
        }
      }
    }
    if (!any_run) {  // none of its sweeps ran in this folder (a paper profile run in parts)
      out.push_back({"not run", category_words("not run")});
      continue;
    }
    if (!failure && !reproduced && !reduced) failure = substitute_failure;
    if (failure) {
      std::string why = failure->known_failure.empty() ? "" : "; " + failure->known_failure;
      out.push_back({"not reproduced", "not reproduced (" + std::string(failure->substitute.empty() ? "" : "substitute ") +
                                           "measured: " + shorten(failure->measured, 160) +
                                           (failure->reduced.empty() ? "" : " [" + failure->reduced + "]") +
                                           shorten(why, 200) + ")"});
    } else if (reproduced) {
      out.push_back({"reproduced", category_words("reproduced")});
    } else if (reduced) {
      out.push_back({"reduced", category_words("reduced") + " (" + reduced_why + ")"});
    } else if (substitute) {
      out.push_back({"substitute", category_words("substitute")});
    } else if (!no_evidence.empty()) {
      // Passed, but no plausible wrong model makes its checks fail: nothing was shown.
      out.push_back({"not checked", "not checked (its checks pass but are no evidence: " + shorten(no_evidence, 200) + ")"});
    } else {
      out.push_back({"none", category_words("none")});
    }
  }
  return out;
}

std::optional<std::map<std::string, std::vector<CheckResult>>> read_check_results(const ClaimsIndex& index,
                                                                                  const std::string& dir) {
  std::set<std::string> sweeps;
  for (const auto& [id, refs] : index.checks)
    for (const auto& r : refs) sweeps.insert(r.sweep);
  std::map<std::string, std::vector<CheckResult>> out;
  bool any = false;
  for (const auto& stem : sweeps) {
    const fs::path file = fs::path(dir) / stem / "checks.json";
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(file, ec))) continue;
    any = true;
    nlohmann::json j;
    try {  // never through a link; a pipe or device is refused without blocking
      j = parse_json(read_entry(file.parent_path().string(), "checks.json", 64 << 20, "checks file").value_or(""),
                     file.string());
    } catch (const nlohmann::json::exception& e) {
      throw InputError(file.string() + ": not a checks file (" + json_error_text(e) + ")");
    }
    if (!j.is_array()) throw InputError(file.string() + ": not a checks file (expected a list)");
    auto& list = out[stem];
    try {
    for (const auto& c : j) {
      CheckResult r;
      r.claim = c.value("claim", "");
      r.kind = c.value("kind", "");
      r.passed = c.value("passed", false);
      r.measured = c.value("measured", "");
      r.expected = c.value("expected", "");
      r.known_failure = c.value("known_failure", "");
      r.substitute = c.value("substitute", "");
      r.reduced = c.value("reduced", "");
      r.index = c.value("index", std::size_t{0});
      r.not_evidence = c.value("not_evidence", "");
      if (c.contains("margin")) {
        const auto& m = c.at("margin");
        r.margin = m.is_number() ? m.get<double>() : m == "inf" ? INFINITY : m == "-inf" ? -INFINITY : std::nan("");
        r.margin_unit = c.value("margin_unit", "");
      }
      if (c.contains("ref")) r.refs = c.at("ref").get<std::vector<std::string>>();
      list.push_back(std::move(r));
    }
    } catch (const nlohmann::json::exception& e) {
      throw InputError(file.string() + ": not a checks file (" + json_error_text(e) + ")");
    }
  }
  if (!any) return std::nullopt;
  return out;
}

std::string item_counts(const std::vector<ItemStatus>& statuses) {
  std::map<std::string, int> n;
  for (const auto& s : statuses) ++n[s.category];
  std::string out = fmt::format("{} reproduced at the paper's setting, {} at reduced scale, {} substitute only, "
                                "{} not reproduced, {} not checked",
                                n["reproduced"], n["reduced"], n["substitute"], n["not reproduced"], n["not checked"]);
  if (n["none"]) out += fmt::format(", {} with no check in this profile", n["none"]);
  if (n["not run"]) out += fmt::format(", {} not run", n["not run"]);
  return out + fmt::format(" (of {} items)", statuses.size());
}

namespace {

// Between the runs of one wrong model at several profiles in a CLAIMS.md cell.
constexpr const char* kProfileSeparator = " \u2016 ";

// The results of a check's wrong model (its own overrides), by profile: quick first.
std::vector<const CounterfactualResult*> results_of(const CheckRef& r, const std::vector<CounterfactualResult>& all) {
  std::vector<const CounterfactualResult*> out;
  for (const auto& c : all)
    if (c.sweep == r.sweep && c.index == r.index && c.set == r.counterfactual) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->profile == "quick" && b->profile != "quick"; });
  return out;
}

// "REJECTS at 3/3 seeds (quick)", "ACCEPTS at 1/3 seeds (quick)", "ERROR (quick): ..."
std::string verdict_cell(const CounterfactualResult& c) {
  const std::string where = c.profile.empty() ? "" : " (" + c.profile + ")";
  if (!c.error.empty()) return "ERROR" + where + ": " + c.error;
  std::string v = c.rejected ? "REJECTS" : "ACCEPTS";
  if (c.deterministic) v += " (deterministic)";
  else if (!c.seeds.empty())
    v += fmt::format(" at {}/{} seeds", c.rejected ? c.seeds_rejecting() : c.seeds.size() - c.seeds_rejecting(), c.seeds.size());
  if (!c.rejected && !c.not_evidence.empty()) v += ", as declared (not evidence)";
  return v + where;
}

// The planned cost of a check's sweep where it was not run: "--plan: fig9 336 CPU-hours per seed".
std::string planned_text(const ClaimsIndex& index, const std::string& sweep) {
  const auto h = index.planned_cpu_hours.find(sweep);
  return h == index.planned_cpu_hours.end() ? "" : " (--plan: " + sweep + " " + h->second + " CPU-hours per seed)";
}

}  // namespace

std::string counterfactual_counts(const ClaimsIndex& index, const std::vector<CounterfactualResult>& counterfactuals) {
  std::set<std::pair<std::string, std::size_t>> seen;
  int declared = 0, rejected = 0, accepted = 0, declared_no_evidence = 0, not_run = 0, errors = 0;
  for (const auto& [id, refs] : index.checks)
    for (const auto& r : refs) {
      if (r.counterfactual.empty() || !seen.insert({r.sweep, r.index}).second) continue;
      ++declared;
      const auto res = results_of(r, counterfactuals);
      if (res.empty()) {
        ++not_run;
        continue;
      }
      bool all = true, error = false;
      for (const auto* c : res) all = all && c->rejected, error = error || !c->error.empty();
      if (error) ++errors;
      else if (all) ++rejected;
      else if (!r.not_evidence.empty()) ++declared_no_evidence;
      else ++accepted;
    }
  std::string out = fmt::format("{} declared: {} rejected at every seed, {} accepted", declared, rejected, accepted);
  if (declared_no_evidence) out += fmt::format(", {} accepted by checks declared no evidence", declared_no_evidence);
  if (errors) out += fmt::format(", {} could not be computed", errors);
  return out + fmt::format(", {} declared, not run", not_run);
}

std::string claims_markdown(const ClaimsIndex& index, const std::vector<std::string>& columns,
                            const std::vector<std::vector<ItemStatus>>& statuses,
                            const std::vector<CounterfactualResult>& counterfactuals) {
  std::ostringstream md;
  md << "# Claims of " << markdown_text(index.citation) << "\n\n"
     << "Every numbered result and figure of the paper, the checks that test it and its status in each\n"
     << "profile. Generated by " << markdown_code("scalinglab claims " + index.paper)
     << " from `claims.toml`, the sweep files\n"
     << "and the reports of `scalinglab reproduce`; regenerate it rather than editing it (docs/checks.md).\n\n";
  for (std::size_t c = 0; c < columns.size(); ++c)
    md << "- **" << markdown_text(columns[c]) << "**: " << item_counts(statuses[c]) << ".\n";
  md << "- **wrong models**: " << counterfactual_counts(index, counterfactuals) << ".\n";
  if (!index.plan_command.empty())
    md << "\nCost of the paper profile's sweeps not run here (CPU-hours, one core per task), measured by "
       << index.plan_command << ". Run them on a cluster: `scalinglab slurm` (docs/cluster.md).\n";
  md << "\n| item | claim |";
  for (const auto& c : columns) md << " " << markdown_cell(c) << " |";
  md << " checks |\n|---|---|";
  for (std::size_t c = 0; c < columns.size(); ++c) md << "---|";
  md << "---|\n";
  for (std::size_t i = 0; i < index.items.size(); ++i) {
    const auto& item = index.items[i];
    md << "| " << markdown_cell(item.id) << " | " << markdown_cell(item.claim) << " |";
    for (std::size_t c = 0; c < columns.size(); ++c) md << " " << markdown_cell(statuses[c][i].text) << " |";
    std::string checks;
    const auto it = index.checks.find(item.id);
    if (it != index.checks.end())
      for (const auto& r : it->second) {
        checks += (checks.empty() ? "" : ", ") + r.name();
        if (!r.profiles.empty()) {
          std::string p;
          for (const auto& x : r.profiles) p += (p.empty() ? "" : "/") + x;
          checks += " (" + p + ")";
        }
        if (!r.substitute.empty()) checks += " (substitute)";
        if (!r.known_failure.empty()) checks += " (known failure)";
        if (!r.not_evidence.empty()) checks += " (not evidence)";
        if (!r.counterfactual.empty()) {
          // What is known of its wrong model: rejected where it ran, or only declared.
          const auto res = results_of(r, counterfactuals);
          bool all = !res.empty();
          for (const auto* c : res) all = all && c->rejected && c->error.empty();
          checks += std::string(res.empty() ? " (declared, not run: " : all ? " (rejects " : " (does not reject ") +
                    join_text(r.counterfactual) + ")";
        }
      }
    md << " " << markdown_cell(checks.empty() ? "-" : checks) << " |\n";
  }
  // Every check with a counterfactual once, in file order.
  std::map<std::pair<std::string, std::size_t>, const CheckRef*> with_cf;
  for (const auto& [id, refs] : index.checks)
    for (const auto& r : refs)
      if (!r.counterfactual.empty()) with_cf.emplace(std::pair(r.sweep, r.index), &r);
  if (!with_cf.empty()) {
    md << "\n## Wrong models the checks reject\n\n"
       << "Each check counted as evidence is run again on a model without the mechanism its claim rests on (the\n"
       << "sweep with the overrides below, at the profile named, only the grid points the check reads) at several\n"
       << "seeds, and must fail at every one: " << markdown_code("scalinglab counterfactuals " + index.paper)
       << " (docs/checks.md).\n"
       << "REJECTS: the check failed on the wrong model at every seed (a deterministic sweep runs once). The margin\n"
       << "is the smallest over the seeds, in the check's own units: standard errors (sem) for means over runs,\n"
       << "decades or slope units for exact values; the measured text is that of the seed closest to accepting.\n\n"
       << "| check | counterfactual (--set) | why the claim must fail there | verdict | smallest margin | measured on it |\n"
       << "|---|---|---|---|---|---|\n";
    for (const auto& [key, r] : with_cf) {
      const auto res = results_of(*r, counterfactuals);
      std::string verdict, margin, measured;
      if (res.empty()) {
        verdict = "declared, not run" + planned_text(index, r->sweep);
      } else {
        for (const auto* c : res) {
          const std::string sep = verdict.empty() ? "" : kProfileSeparator;
          verdict += sep + verdict_cell(*c);
          margin += sep + (margin_text(c->margin, c->margin_unit).empty() ? "-" : margin_text(c->margin, c->margin_unit));
          measured += sep + shorten(c->measured, 160);
        }
      }
      if (!r->not_evidence.empty()) verdict += " [not evidence: " + shorten(r->not_evidence, 200) + "]";
      md << "| " << markdown_cell(r->name()) << " | " << markdown_cell(join_text(r->counterfactual)) << " | "
         << markdown_cell(r->counterfactual_why) << " | " << markdown_cell(verdict) << " | "
         << markdown_cell(margin.empty() ? "-" : margin) << " | " << markdown_cell(measured.empty() ? "-" : measured) << " |\n";
    }
  }
  return md.str();
}

std::vector<CounterfactualResult> counterfactuals_from_markdown(const std::string& md) {
  std::istringstream in(md);
  std::string line;
  bool in_table = false;
  std::vector<CounterfactualResult> out;
  while (std::getline(in, line)) {
    if (line.rfind("| check | counterfactual", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    if (line.rfind("| ", 0) != 0) break;
    const auto cells = split_row(line);
    if (cells.size() < 6) continue;
    const auto hash = cells[0].rfind(" #");
    if (hash == std::string::npos) continue;
    std::size_t index = 0;
    try {
      index = std::stoul(cells[0].substr(hash + 2));
    } catch (const std::exception&) {
      continue;
    }
    std::vector<std::string> set;
    for (std::size_t at = 0; at <= cells[1].size();) {  // "a=1, b=2"
      const auto comma = cells[1].find(", ", at);
      set.push_back(cells[1].substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 2;
    }
    // One verdict per profile run, separated in the verdict, margin and measured cells.
    auto split = [](const std::string& cell) {
      std::vector<std::string> parts;
      const std::string sep_text = kProfileSeparator;
      for (std::size_t at = 0; at <= cell.size();) {
        const auto sep = cell.find(sep_text, at);
        parts.push_back(cell.substr(at, sep == std::string::npos ? std::string::npos : sep - at));
        if (sep == std::string::npos) break;
        at = sep + sep_text.size();
      }
      return parts;
    };
    std::string verdict_cell_text = cells[3];
    if (const auto nb = verdict_cell_text.find(" [not evidence: "); nb != std::string::npos) verdict_cell_text.resize(nb);
    const auto verdicts = split(verdict_cell_text), margins = split(cells[4]), measured = split(cells[5]);
    for (std::size_t k = 0; k < verdicts.size(); ++k) {
      const std::string& v = verdicts[k];
      const bool rejects = v.rfind("REJECTS", 0) == 0, accepts = v.rfind("ACCEPTS", 0) == 0;
      if (!rejects && !accepts) continue;  // declared, not run; errors are rerun
      CounterfactualResult r;
      r.sweep = cells[0].substr(0, hash);
      r.index = index;
      r.set = set;
      r.why = cells[2];
      r.rejected = rejects;
      r.deterministic = v.find("(deterministic)") != std::string::npos;
      if (v.find("as declared (not evidence)") != std::string::npos) r.not_evidence = "declared";
      if (const auto open = v.rfind(" ("); open != std::string::npos && v.back() == ')') {
        const std::string p = v.substr(open + 2, v.size() - open - 3);
        if (p.find(' ') == std::string::npos) r.profile = p;
      }
      std::size_t n = 0, m = 0;
      if (const auto at = v.find(" at "); at != std::string::npos && std::sscanf(v.c_str() + at, " at %zu/%zu seeds", &m, &n) == 2) {
        const std::size_t rejecting = rejects ? m : n - m;
        for (std::size_t i = 0; i < n; ++i) r.seeds.push_back({0, i < rejecting, "", "", std::nan(""), "", ""});
      } else {
        r.seeds.push_back({0, rejects, "", "", std::nan(""), "", ""});
      }
      if (k < margins.size()) {
        double value = 0;
        char unit[32] = {0};
        if (margins[k].rfind("+inf ", 0) == 0 || margins[k].rfind("-inf ", 0) == 0) {
          value = margins[k][0] == '+' ? INFINITY : -INFINITY;
          r.margin_unit = margins[k].substr(5);
          r.margin = value;
        } else if (std::sscanf(margins[k].c_str(), "%lf %31s", &value, unit) == 2) {
          r.margin = value;
          r.margin_unit = unit;
        }
      }
      if (k < measured.size()) r.measured = measured[k];
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<ItemStatus> column_from_markdown(const std::string& md, const ClaimsIndex& index, const std::string& column,
                                             const std::vector<ItemStatus>& fallback) {
  const auto [header, rows] = table_rows(md);
  std::vector<ItemStatus> out = fallback;
  const auto pos = std::find(header.begin(), header.end(), column);
  if (pos == header.end()) return out;
  const std::size_t k = static_cast<std::size_t>(pos - header.begin());
  for (std::size_t i = 0; i < index.items.size(); ++i) {
    if (!index.items[i].not_checked.empty()) continue;  // the index decides that, not the old file
    for (const auto& row : rows)
      if (row.size() > k && !row.empty() && row[0] == index.items[i].id) {
        const std::string cat = category_of_text(row[k]);
        if (cat != "?" && cat != "not checked") out[i] = {cat, row[k]};
      }
  }
  return out;
}

// A check's wrong model is declared in its sweep file; whether it ran and was rejected is a result, which
// a table without runs cannot know. The comparison keeps the model and drops the outcome.
static std::string without_outcomes(std::string cell) {
  for (const char* outcome : {"(declared, not run: ", "(does not reject ", "(rejects "}) {
    const std::string from = outcome;
    for (std::size_t at = cell.find(from); at != std::string::npos; at = cell.find(from, at + 1))
      cell.replace(at, from.size(), "(wrong model: ");
  }
  return cell;
}

std::string compare_claims_markdown(const std::string& committed, const std::string& fresh,
                                    const std::vector<std::string>& columns) {
  const auto [h1, rows1] = table_rows(committed);
  const auto [h2, rows2] = table_rows(fresh);
  std::ostringstream diff;
  if (h1.empty()) return "no claims table (a header row '| item | ...') in the committed file\n";
  if (h1.front() != h2.front() || h1.size() != h2.size() || h1.back() != h2.back())
    diff << "header differs: committed '" << fmt::format("{}", fmt::join(h1, " | ")) << "', fresh '"
         << fmt::format("{}", fmt::join(h2, " | ")) << "'\n";
  if (rows1.size() != rows2.size())
    diff << "committed has " << rows1.size() << " items, fresh has " << rows2.size() << "\n";
  const std::size_t n = std::min(rows1.size(), rows2.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& a = rows1[i];
    const auto& b = rows2[i];
    if (a.size() != b.size() || a.empty()) {
      diff << "row " << i + 1 << ": different number of cells\n";
      continue;
    }
    if (a[0] != b[0] || a[1] != b[1]) diff << "row " << i + 1 << ": item '" << a[0] << "' vs '" << b[0] << "' (or its claim)\n";
    if (without_outcomes(a.back()) != without_outcomes(b.back()))
      diff << a[0] << ": checks '" << a.back() << "' vs fresh '" << b.back() << "'\n";
    for (const auto& col : columns) {
      const auto pos = std::find(h2.begin(), h2.end(), col);
      const auto pos1 = std::find(h1.begin(), h1.end(), col);
      if (pos == h2.end() || pos1 == h1.end()) {
        if (i == 0) diff << "column '" << col << "' missing\n";
        continue;
      }
      const std::size_t k = static_cast<std::size_t>(pos - h2.begin());
      const std::size_t k1 = static_cast<std::size_t>(pos1 - h1.begin());
      if (k >= b.size() || k1 >= a.size()) continue;
      const std::string ca = category_of_text(a[k1]), cb = category_of_text(b[k]);
      if (ca != cb) diff << a[0] << " (" << col << "): committed '" << shorten(a[k1], 80) << "', fresh '" << shorten(b[k], 80) << "'\n";
    }
  }
  return diff.str();
}

}  // namespace scalinglab
