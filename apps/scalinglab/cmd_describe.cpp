#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/describe.hpp"
#include "scalinglab/lab/measure.hpp"

namespace scalinglab::cli {

void add_describe(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "describe", "Show a measure's parameters (type, default, range, doc) and metrics;\n"
                  "--markdown prints the reference of every measure (docs/measures.md)");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto markdown = std::make_shared<bool>(false);
  cmd->add_option("measure", *name, "measure name, e.g. memory.error");
  cmd->add_flag("--json", *json, "print the declaration as JSON");
  cmd->add_flag("--markdown", *markdown, "print the Markdown reference of all measures");
  cmd->callback([&action, name, json, markdown] {
    action = [name, json, markdown] {
      if (*markdown) {
        std::printf("%s", describe_markdown(world_registry()).c_str());
        return 0;
      }
      if (name->empty()) throw InputError("describe: name a measure (see `scalinglab list`) or pass --markdown");
      const Measure& m = world_registry().get(*name);
      if (*json) std::printf("%s\n", describe_json(m).dump(2).c_str());
      else std::printf("%s", describe_text(m).c_str());
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
