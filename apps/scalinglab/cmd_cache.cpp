#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "scalinglab/core/duration.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/results/task_cache.hpp"

namespace scalinglab::cli {

namespace {

std::string megabytes(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

std::string date_of(double seconds) {
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

void add_cache(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "cache", "The task cache `run` reads and writes (default results/.cache): each task's record under its\n"
               "measure, parameters, seed, run and the lab's build, so an edited sweep runs only its new tasks.");
  cmd->require_subcommand(1);
  auto dir = std::make_shared<std::string>("results/.cache");
  auto json = std::make_shared<bool>(false);
  auto* stats = cmd->add_subcommand("stats", "what the cache holds: entries, size, measures, builds of the lab, age");
  stats->add_option("dir", *dir, "the cache folder (default results/.cache)");
  stats->add_flag("--json", *json, "print one JSON object (the keys of Python's scalinglab.cache_stats)");
  stats->callback([&action, dir, json] {
    action = [dir, json] {
      const CacheStats s = cache_stats(*dir);
      if (*json) {
        const nlohmann::json j = {{"entries", s.entries},       {"bytes", s.bytes},
                                  {"this_build", s.this_build}, {"build", lab_build_id()},
                                  {"unreadable", s.unreadable}, {"temporaries", s.temporaries},
                                  {"by_measure", s.by_measure}, {"by_build", s.by_build},
                                  {"oldest", s.oldest},         {"newest", s.newest}};
        std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return 0;
      }
      std::printf("%s: %zu entries, %s; %zu written by this build of the lab (%s), reusable by its runs\n",
                  terminal_text(*dir).c_str(), s.entries, megabytes(s.bytes).c_str(), s.this_build,
                  lab_build_id().c_str());
      if (s.entries > 0)
        std::printf("written between %s and %s\n", date_of(s.oldest).c_str(), date_of(s.newest).c_str());
      for (const auto& [m, n] : s.by_measure) std::printf("  measure %-28s %zu\n", terminal_text(m).c_str(), n);
      for (const auto& [b, n] : s.by_build)
        std::printf("  build   %-28s %zu%s\n", terminal_text(b).c_str(), n, b == lab_build_id() ? " (this one)" : "");
      if (s.unreadable > 0)
        std::printf("%zu entries do not parse (runs refuse them; `scalinglab cache prune` removes them)\n", s.unreadable);
      if (s.temporaries > 0) std::printf("%zu temporaries of writes cut short (prune removes them)\n", s.temporaries);
      return 0;
    };
  });
  struct PruneOpts {
    std::string dir = "results/.cache", older_than;
    bool all = false, json = false;
  };
  auto p = std::make_shared<PruneOpts>();
  auto* prune = cmd->add_subcommand(
      "prune", "remove entries of other builds of the lab, entries that do not parse and cut writes; with\n"
               "--older-than also entries not written for that long, with --all every entry. Refused while a run\n"
               "uses the cache.");
  prune->add_option("dir", p->dir, "the cache folder (default results/.cache)");
  prune->add_option("--older-than", p->older_than, "also remove entries older than this (90s, 10m, 12h, 30d)");
  prune->add_flag("--all", p->all, "remove every entry");
  prune->add_flag("--json", p->json, "print {\"removed\", \"bytes\", \"kept\"} as JSON");
  prune->callback([&action, p] {
    action = [p] {
      PruneOptions options;
      options.all = p->all;
      if (!p->older_than.empty()) options.older_than = parse_duration(p->older_than, "--older-than");
      const PruneOutcome r = prune_cache(p->dir, options, now_seconds());
      if (p->json) {
        std::printf("%s\n", nlohmann::json{{"removed", r.removed}, {"bytes", r.bytes}, {"kept", r.kept}}.dump().c_str());
        return 0;
      }
      std::printf("%s: removed %zu entries (%s), kept %zu\n", terminal_text(p->dir).c_str(), r.removed,
                  megabytes(r.bytes).c_str(), r.kept);
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
