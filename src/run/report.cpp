// `reproduce`: every sweep of experiments/PAPER/ in the paper's order (fig3 before fig10), then OUT/report.md (and report.html
// with the SVG figures inline) listing each claim as PASS/FAIL with measured vs expected values.
// All sweep files are loaded before anything runs, so a typo in the last file costs no time.
#include "scalinglab/run/report.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "scalinglab/claims/claims.hpp"
#include "scalinglab/claims/margin.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/run/runner.hpp"

namespace fs = std::filesystem;

namespace scalinglab {

namespace {

// What one sweep contributed to the report.
struct SweepReport {
  Sweep sweep;
  RunOutcome outcome;
  double seconds = 0;
  std::string error;  // a failed computation (the other sweeps still run)
};

std::vector<std::string> subdirectories(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

std::string duration_text(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  return fmt::format("{}m{:02d}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
}

std::string timing_text(const SweepReport& r) {
  const auto& o = r.outcome;
  std::string t = fmt::format("{} tasks", o.tasks_total);
  if (o.tasks_skipped) t += fmt::format(" ({} resumed)", o.tasks_skipped);
  return t + " in " + duration_text(r.seconds);
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A link to FILE in a sweep's folder: "./" and the folder name percent-encoded, so that no name (a
// sweep file called "javascript:alert(1).toml") can become a scheme, leave the folder or break the
// markup. Every byte but the unreserved ones of RFC 3986 is encoded.
std::string folder_link(const std::string& folder, const std::string& file) {
  std::string out = "./";
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : folder) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += static_cast<char>(c);
    else out += std::string("%") + hex[c >> 4] + hex[c & 15];
  }
  return out + "/" + file;
}

// A figure of a sweep's folder, inlined into report.html: read without following a link (a planted
// plot.svg -> ~/.ssh/id_rsa would otherwise be published in the report), as a regular file of at
// most 64 MB.
std::string read_text(const fs::path& p) {
  return read_entry(p.parent_path().string(), p.filename().string(), std::uint64_t{64} << 20, "figure").value_or("");
}

std::string base64(const std::string& in) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned value = 0;
  int bits = -6;
  for (unsigned char c : in) {
    value = (value << 8) + c;
    for (bits += 8; bits >= 0; bits -= 6) out += table[(value >> bits) & 0x3F];
  }
  if (bits > -6) out += table[((value << 8) >> (bits + 8)) & 0x3F];
  while (out.size() % 4) out += '=';
  return out;
}

struct Totals {
  int passed = 0, failed = 0, known = 0;  // known: failures marked known_failure in the sweep
  std::map<std::string, int> categories;  // CheckResult::category() -> count
};

void add(Totals& t, const SweepReport& r) {
  if (!r.error.empty()) ++t.failed;
  for (const auto& c : r.outcome.checks) {
    ++(c.passed ? t.passed : c.ok() ? t.known : t.failed);
    ++t.categories[c.category()];
  }
}

Totals count(const std::vector<SweepReport>& reports) {
  Totals t;
  for (const auto& r : reports) add(t, r);
  return t;
}

// A section's counts for the table of contents: "3 PASS, 1 FAIL, 1 known".
std::string section_counts(const SweepReport& r) {
  Totals t;
  add(t, r);
  if (t.passed + t.failed + t.known == 0) return "figure only";
  std::string out = fmt::format("{} PASS", t.passed);
  if (t.failed) out += fmt::format(", {} FAIL", t.failed);
  if (t.known) out += fmt::format(", {} known", t.known);
  return out;
}

// The items of claims.toml a sweep's checks test, in the index's order (indexes into its items).
std::vector<std::size_t> items_tested(const ClaimsIndex& index, const SweepReport& r) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < index.items.size(); ++i)
    for (const auto& c : r.outcome.checks)
      if (std::find(c.refs.begin(), c.refs.end(), index.items[i].id) != c.refs.end()) {
        out.push_back(i);
        break;
      }
  return out;
}

std::string summary_line(const Totals& t) {
  return fmt::format("{} passed, {} failed", t.passed, t.failed) + (t.known ? fmt::format(", {} known failures", t.known) : "");
}

// What the passes mean: at the paper's setting, at a reduced scale, or in a substitute setting.
std::string categories_line(const Totals& t) {
  auto n = t.categories;
  return fmt::format("checks: {} reproduced at the paper's setting, {} at reduced scale, {} substitute, {} not reproduced",
                     n["reproduced"], n["reduced"], n["substitute"], n["not reproduced"]) +
         (n["not evidence"] ? fmt::format(", {} passed but no evidence", n["not evidence"]) : "");
}

// The paper's items (claims.toml) and their status in this run; nullopt when the folder has no index.
struct ClaimsSection {
  ClaimsIndex index;
  std::vector<ItemStatus> statuses;
};

std::optional<ClaimsSection> claims_section(const fs::path& experiments, const std::string& paper,
                                            const std::vector<SweepReport>& reports) {
  if (!fs::exists(experiments / paper / "claims.toml")) return std::nullopt;
  try {
    ClaimsSection s{load_claims(experiments.string(), paper), {}};
    std::map<std::string, std::vector<CheckResult>> results;
    for (const auto& r : reports) results[r.sweep.name] = r.outcome.checks;
    s.statuses = item_statuses(s.index, results);
    return s;
  } catch (const InputError& e) {
    std::fprintf(stderr, "scalinglab: warning: no claims table: %s\n", terminal_text(e.what()).c_str());
    return std::nullopt;
  }
}

// The status cell of a check: PASS says at which scale it passed.
std::string status_text(const CheckResult& c) {
  const std::string cat = c.category();
  if (cat == "reduced") return "PASS (reduced scale)";
  if (cat == "substitute") return "PASS (substitute)";
  if (cat == "not evidence") return "PASS (not evidence)";
  return c.status();
}

// What a check measured, and how far from flipping its verdict: "... [margin +3.2 sem]".
std::string measured_with_margin(const CheckResult& c) {
  const std::string m = margin_text(c.margin, c.margin_unit);
  return m.empty() ? c.measured : c.measured + " [margin " + m + "]";
}

std::string refs_text(const CheckResult& c) {
  std::string out;
  for (const auto& r : c.refs) out += (out.empty() ? "" : ", ") + r;
  return out;
}

void write_markdown(const fs::path& path, const ReproduceOptions& o, const std::vector<SweepReport>& reports,
                    const fs::path& out_dir, const std::optional<ClaimsSection>& claims) {
  // Every text of the sweep files, the claims index and the file names through markdown_text (or
  // markdown_code): a title or a claim holding HTML is shown, never rendered.
  std::ostringstream md;
  md << "# Reproducing " << markdown_code(o.paper) << "\n\n"
     << "Profile " << markdown_code(o.profile) << ", " << now_text() << ", " << reports.size()
     << (reports.size() == 1 ? " sweep. " : " sweeps. ")
     << "**" << summary_line(count(reports)) << ".**\n\n"
     << categories_line(count(reports)) << "." << (count(reports).categories["reduced"] ? " (Reduced scale: the profile runs the claims smaller than the paper does.)" : "") << "\n\n";
  if (claims)
    md << "Items of the paper (claims.toml): " << item_counts(claims->statuses) << "; table at the end and in [claims.md](claims.md).\n\n";
  md << "Contents:\n\n";
  for (const auto& r : reports) md << "- " << markdown_text(r.sweep.name) << ": " << section_counts(r) << "\n";
  md << "\n";
  for (const auto& r : reports) {
    const std::string stem = r.sweep.name, shown = markdown_text(stem);
    md << "## " << shown << (r.sweep.title.empty() ? "" : ": " + markdown_text(r.sweep.title)) << "\n\n"
       << markdown_code(r.sweep.measures_text()) << ", " << timing_text(r) << ". Data: [" << shown << "/summary.csv]("
       << folder_link(stem, "summary.csv") << "), sweep file: [" << shown << "/sweep.toml]("
       << folder_link(stem, "sweep.toml") << ").\n\n";
    if (!r.error.empty()) md << "**ERROR**: " << markdown_text(r.error) << "\n\n";
    if (r.outcome.plotted && fs::exists(out_dir / stem / "plot.png"))
      md << "![" << shown << "](" << folder_link(stem, "plot.png") << ")\n\n";
    if (r.outcome.checks.empty()) continue;
    md << "| | item | claim | measured | expected |\n|---|---|---|---|---|\n";
    for (const auto& c : r.outcome.checks) {
      const std::string margin = margin_text(c.margin, c.margin_unit);
      md << "| " << (c.passed || c.ok() ? status_text(c) : "**FAIL**") << " | " << markdown_text(refs_text(c)) << " | "
         << (c.substitute.empty() ? "" : "(substitute: " + markdown_text(c.substitute) + ") ") << markdown_text(c.claim)
         << (c.passed || c.known_failure.empty() ? "" : " (known: " + markdown_text(c.known_failure) + ")") << " | "
         << markdown_text(c.measured) << (margin.empty() ? "" : " [margin " + markdown_text(margin) + "]") << " | "
         << markdown_code(c.expected, true) << " |\n";  // formulas: no markdown emphasis
    }
    md << "\n";
  }
  if (claims) {
    md << "## Claims of the paper\n\n" << item_counts(claims->statuses) << ".\n\n| item | status |\n|---|---|\n";
    for (std::size_t i = 0; i < claims->index.items.size(); ++i)
      md << "| " << markdown_text(claims->index.items[i].id) << " | " << markdown_text(claims->statuses[i].text)
         << " |\n";
    md << "\n";
  }
  md << summary_line(count(reports)) << "\n";
  write_file(path.string(), md.str());
}

// A figure up to this size is inlined in report.html, while the inlined total stays within the
// budget; larger ones are linked (a scatter of decision regions can weigh megabytes).
constexpr std::uintmax_t kInlineFigureBytes = 250 * 1024;
constexpr std::uintmax_t kInlineBudgetBytes = 1800 * 1024;  // 2.4 MB once base64-encoded

// The same report as an HTML page. The SVG figures are embedded as data URIs, not pasted as <svg>
// elements, because gnuplot reuses element ids (clip paths) across files; large ones are linked.
void write_html(const fs::path& path, const ReproduceOptions& o, const std::vector<SweepReport>& reports,
                const fs::path& out_dir, const std::optional<ClaimsSection>& claims) {
  std::uintmax_t inlined = 0;  // bytes of figures inlined so far
  std::ostringstream h;
  h << "<!doctype html>\n<meta charset=\"utf-8\">\n<title>" << html_escape(o.paper) << " (" << o.profile
    << ")</title>\n<style>body{font-family:Helvetica,Arial,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;"
       "color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border-bottom:1px solid #ddd;padding:4px 8px;"
       "text-align:left;vertical-align:top}.pass{color:#1a7f37;font-weight:bold}.fail{color:#c62828;"
       "font-weight:bold}.known{color:#b26a00;font-weight:bold}.meta{color:#666}figure{margin:1em 0}"
       "figure img{width:900px;max-width:100%;height:auto}figcaption{font-size:small;color:#666}"
       "nav ol{columns:2;font-size:small}nav li{margin:2px 0}:target{background:#fff8d0}</style>\n"
    << "<h1>Reproducing " << html_escape(o.paper) << "</h1>\n<p class=\"meta\">Profile " << html_escape(o.profile)
    << ", " << now_text() << ". <b>" << summary_line(count(reports)) << "</b>; " << html_escape(categories_line(count(reports)))
    << ".</p>\n";
  if (claims) h << "<p class=\"meta\">Items of the paper: " << html_escape(item_counts(claims->statuses)) << ".</p>\n";
  // Contents: every section in the paper's order with its checks' outcome; anchors are numbered,
  // never made from a file name.
  h << "<nav><h2>Contents</h2><ol>\n";
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const auto& r = reports[k];
    Totals t;
    add(t, r);
    h << "<li><a href=\"#sweep-" << k + 1 << "\">" << html_escape(r.sweep.name) << "</a> <span class=\""
      << (t.failed ? "fail" : t.known ? "known" : t.passed ? "pass" : "meta") << "\">" << section_counts(r) << "</span></li>\n";
  }
  if (claims) h << "<li><a href=\"#claims\">Claims of the paper</a></li>\n";
  h << "</ol></nav>\n";
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const auto& r = reports[k];
    const std::string stem = r.sweep.name;
    h << "<h2 id=\"sweep-" << k + 1 << "\">" << html_escape(stem + (r.sweep.title.empty() ? "" : ": " + r.sweep.title)) << "</h2>\n"
      << "<p class=\"meta\">" << html_escape(r.sweep.measures_text()) << ", " << timing_text(r) << ". <a href=\""
      << folder_link(stem, "summary.csv") << "\">summary.csv</a></p>\n";
    if (!r.error.empty()) h << "<p class=\"fail\">ERROR: " << html_escape(r.error) << "</p>\n";
    // The rows of the claims table this sweep tests, linked from its figure.
    std::string claims_links;
    if (claims) {
      for (const std::size_t i : items_tested(claims->index, r))
        claims_links += (claims_links.empty() ? " \u00b7 claims table: " : ", ") + std::string("<a href=\"#item-") +
                        std::to_string(i + 1) + "\">" + html_escape(claims->index.items[i].id) + "</a>";
    }
    const fs::path svg = out_dir / stem / "plot.svg";
    if (r.outcome.plotted && fs::exists(svg)) {
      // Small figures are inlined (the page stands alone); large ones, and all once the page has
      // inlined its budget, are linked, so the page stays light (the folder travels with it).
      std::error_code ec;
      const auto bytes = fs::file_size(svg, ec);
      const bool inline_it = !ec && inline_figure(bytes, inlined);
      const std::string src = inline_it ? "data:image/svg+xml;base64," + base64(read_text(svg))
                                        : folder_link(stem, "plot.svg");
      h << "<figure><img alt=\"" << html_escape(stem) << "\" src=\"" << src << "\"><figcaption>"
        << "<a href=\"" << folder_link(stem, "plot.pdf") << "\">PDF</a> \u00b7 <a href=\"" << folder_link(stem, "plot.png")
        << "\">PNG</a> \u00b7 <a href=\"" << folder_link(stem, "plot.svg") << "\">SVG</a> \u00b7 <a href=\""
        << folder_link(stem, "plot.gp") << "\">gnuplot script</a>" << claims_links << "</figcaption></figure>\n";
    } else if (!claims_links.empty()) {
      h << "<p class=\"meta\">" << claims_links.substr(std::string(" \u00b7 ").size()) << "</p>\n";
    }
    if (r.outcome.checks.empty()) continue;
    h << "<table><tr><th></th><th>item</th><th>claim</th><th>measured</th><th>expected</th></tr>\n";
    for (const auto& c : r.outcome.checks)
      h << "<tr><td class=\"" << (c.passed ? "pass" : c.ok() ? "known" : "fail") << "\">" << html_escape(status_text(c))
        << "</td><td>" << html_escape(refs_text(c)) << "</td><td>"
        << (c.substitute.empty() ? "" : "(substitute: " + html_escape(c.substitute) + ") ") << html_escape(c.claim) << (c.passed || c.known_failure.empty() ? "" : " (known: " + html_escape(c.known_failure) + ")")
        << "</td><td>" << html_escape(measured_with_margin(c)) << "</td><td>" << html_escape(c.expected) << "</td></tr>\n";
    h << "</table>\n";
  }
  if (claims) {
    h << "<h2 id=\"claims\">Claims of the paper</h2>\n<p>" << html_escape(item_counts(claims->statuses))
      << ".</p>\n<table><tr><th>item</th><th>claim</th><th>status</th><th>sweeps</th></tr>\n";
    for (std::size_t i = 0; i < claims->index.items.size(); ++i) {
      const auto& st = claims->statuses[i];
      const char* cls = st.category == "not reproduced" ? "fail" : st.category == "reproduced" ? "pass" : "known";
      std::string sweeps;  // back to the sections whose checks test the item
      for (std::size_t k = 0; k < reports.size(); ++k) {
        const auto tested = items_tested(claims->index, reports[k]);
        if (std::find(tested.begin(), tested.end(), i) != tested.end())
          sweeps += (sweeps.empty() ? "" : ", ") + std::string("<a href=\"#sweep-") + std::to_string(k + 1) + "\">" +
                    html_escape(reports[k].sweep.name) + "</a>";
      }
      h << "<tr id=\"item-" << i + 1 << "\"><td>" << html_escape(claims->index.items[i].id) << "</td><td>"
        << html_escape(claims->index.items[i].claim) << "</td><td class=\"" << cls << "\">" << html_escape(st.text)
        << "</td><td>" << sweeps << "</td></tr>\n";
    }
    h << "</table>\n";
  }
  write_file(path.string(), h.str());
}

}  // namespace

bool inline_figure(std::uintmax_t bytes, std::uintmax_t& inlined) {
  if (bytes > kInlineFigureBytes || inlined + bytes > kInlineBudgetBytes) return false;
  inlined += bytes;
  return true;
}

std::string find_experiments_dir(const std::string& hint) {
  if (!hint.empty()) return hint;
  if (fs::is_directory("experiments")) return "experiments";
#ifdef SCALINGLAB_SOURCE_DIR
  if (fs::is_directory(SCALINGLAB_SOURCE_DIR "/experiments")) return SCALINGLAB_SOURCE_DIR "/experiments";
#endif
  return "experiments";
}

std::string paper_folder(const std::string& experiments_dir, const std::string& paper, const std::string& profile) {
  const fs::path experiments = experiments_dir;
  if (!fs::is_directory(experiments))
    throw InputError("experiments folder not found: " + experiments.string() + " (give it with --experiments DIR)");
  if (!profile.empty() && !is_plain_name(profile))
    throw InputError("--profile '" + profile + "': not a profile name");
  if (!is_plain_name(paper))
    throw InputError("paper '" + paper + "': a paper is named by its folder under " + experiments.string() +
                     " (a plain name such as cabannes2023)");
  const fs::path paper_dir = experiments / paper;
  if (!fs::is_directory(paper_dir)) {
    std::string known;
    for (const auto& p : subdirectories(experiments)) known += (known.empty() ? "" : ", ") + p;
    throw InputError("unknown paper '" + paper + "' (available in " + experiments.string() + ": " +
                     (known.empty() ? "none" : known) + ")");
  }
  if (paper_sweep_files(paper_dir.string()).empty()) throw InputError("no *.toml sweep files in " + paper_dir.string());
  return paper_dir.string();
}

std::vector<Sweep> load_paper_sweeps(const ReproduceOptions& options) {
  const fs::path experiments = find_experiments_dir(options.experiments_dir);
  const fs::path paper_dir = paper_folder(experiments.string(), options.paper, options.profile);
  std::vector<Sweep> sweeps;
  for (const auto& f : paper_sweep_files(paper_dir.string())) sweeps.push_back(load_sweep(f, options.profile));
  // A profile no file of the paper knows is a typo, not a request for the files as written.
  if (!options.profile.empty() && !is_standard_profile(options.profile)) {
    std::vector<std::string> known;
    for (const auto& s : sweeps)
      for (const auto& p : s.profiles)
        if (std::find(known.begin(), known.end(), p) == known.end()) known.push_back(p);
    if (std::find(known.begin(), known.end(), options.profile) == known.end()) {
      std::string list;
      for (const auto& p : known) list += (list.empty() ? "" : ", ") + p;
      throw InputError("unknown profile '" + options.profile + "' for " + options.paper + " (its files know: " +
                       (list.empty() ? "none" : list) + "; \"quick\" and \"paper\" always apply)");
    }
  }
  return sweeps;
}

ReproduceOutcome reproduce(const ReproduceOptions& options) {
  const fs::path experiments = find_experiments_dir(options.experiments_dir);
  std::vector<SweepReport> reports;
  for (auto& sweep : load_paper_sweeps(options)) reports.push_back({std::move(sweep), {}, 0, ""});

  const fs::path out_dir = options.out_dir.empty() ? "results/" + options.paper + "-" + options.profile
                                                   : options.out_dir;
  // Refuse before running anything rather than after the first sweeps (the runner would too).
  if (!options.resume)
    for (const auto& r : reports) {
      std::error_code ec;
      if (fs::file_size(out_dir / r.sweep.name / "results.jsonl", ec) > 0 && !ec)
        throw InputError((out_dir / r.sweep.name).string() +
                         " already holds results: pass --resume to continue that reproduce, or choose another --out");
    }
  const ResultsDir held(out_dir);  // one reproduce per folder at a time
  // Names, titles and paths printed through terminal_text: a title's escape sequence is shown, not run.
  std::printf("reproducing %s (profile %s): %zu sweep%s into %s\n", terminal_text(options.paper).c_str(),
              terminal_text(options.profile).c_str(), reports.size(), reports.size() == 1 ? "" : "s",
              terminal_text(out_dir.string()).c_str());
  for (std::size_t i = 0; i < reports.size(); ++i) {
    auto& r = reports[i];
    std::printf("\n[%zu/%zu] %s: %s\n", i + 1, reports.size(), terminal_text(r.sweep.name).c_str(),
                terminal_text(r.sweep.title.empty() ? r.sweep.name : r.sweep.title).c_str());
    std::fflush(stdout);
    RunOptions run;
    run.out_dir = (out_dir / r.sweep.name).string();
    run.threads = options.threads;
    run.resume = options.resume;
    run.quiet = options.quiet;
    run.checkpoint_every = options.checkpoint_every;
    run.handle_signals = options.handle_signals;
    run.origin = SweepOrigin{options.profile, {}};
    const auto start = std::chrono::steady_clock::now();
    try {
      r.outcome = run_sweep(r.sweep, run);
    } catch (const InputError&) {
      throw;  // bad input (e.g. existing results without --resume): stop, exit 2
    } catch (const RunInterrupted&) {
      throw;  // SIGTERM: the whole reproduction stops, --resume continues it
    } catch (const std::exception& e) {
      r.error = e.what();  // a failed computation: report it, go on with the other sweeps
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.error.empty()) std::printf("ERROR %s\n", terminal_text(r.error).c_str());
    for (const auto& c : r.outcome.checks) std::printf("%s\n", c.line().c_str());
    std::printf("(%s)\n", timing_text(r).c_str());
    std::fflush(stdout);
  }

  ReproduceOutcome result;
  result.report_path = (out_dir / "report.md").string();
  const auto claims = claims_section(experiments, options.paper, reports);
  if (claims)
    write_file((out_dir / "claims.md").string(),
               claims_markdown(claims->index, {"profile " + options.profile}, {claims->statuses}));
  write_markdown(result.report_path, options, reports, out_dir, claims);
  write_html(out_dir / "report.html", options, reports, out_dir, claims);
  const Totals t = count(reports);
  result.passed = t.passed;
  result.failed = t.failed;
  std::printf("\nreport: %s\n%s\n", terminal_text(result.report_path).c_str(), categories_line(t).c_str());
  if (claims) std::printf("items of the paper: %s\n", item_counts(claims->statuses).c_str());
  std::printf("%s\n", summary_line(t).c_str());
  return result;
}

}  // namespace scalinglab
