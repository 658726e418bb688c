#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/lab/measure.hpp"

namespace scalinglab::cli {

namespace {
std::string show(const nlohmann::json& v) {
  if (v.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}
}  // namespace

void add_eval(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "eval", "Evaluate a measure at one point: scalinglab eval MEASURE k=v ... [--json]\n"
              "runs=R averages R independent runs (mean, std, sem, count).");
  struct Opts {
    std::string measure;
    std::vector<std::string> assignments;
    bool json = false;
    int threads = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("measure", o->measure, "measure name (see `scalinglab list`)")->required();
  cmd->add_option("params", o->assignments, "parameters as NAME=VALUE (see `scalinglab describe MEASURE`)");
  cmd->add_flag("--json", o->json, "print one JSON object: measure, resolved params, metrics");
  cmd->add_option("--threads", o->threads, "worker threads for runs (default: all cores)")->check(threads_range());
  cmd->callback([&action, o] {
    action = [o] {
      const Measure& m = world_registry().get(o->measure);
      std::map<std::string, std::string> given;
      for (const auto& a : o->assignments) {
        auto [k, v] = split_assignment(a);
        given[k] = v;
      }
      const Params params = resolve_params(m.params, given, m.name);
      const nlohmann::json out = evaluate(m, params, o->threads);
      if (o->json) {
        std::printf("%s\n", out.dump().c_str());
        return 0;
      }
      std::printf("%s  %s\n", m.name.c_str(), params.canonical().c_str());
      for (const auto& [name, v] : out["metrics"].items()) {
        if (v.is_object() && v["count"] == 1)  // one run: its value (--json keeps the summary's shape)
          std::printf("  %-24s %s\n", name.c_str(), show(v["mean"]).c_str());
        else if (v.is_object())
          std::printf("  %-24s %s  (std %s, sem %s, n=%s)\n", name.c_str(), show(v["mean"]).c_str(),
                      show(v["std"]).c_str(), show(v["sem"]).c_str(), show(v["count"]).c_str());
        else if (v.is_array())
          std::printf("  %-24s [%zu values]\n", name.c_str(), v.size());
        else
          std::printf("  %-24s %s\n", name.c_str(), show(v).c_str());
      }
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
