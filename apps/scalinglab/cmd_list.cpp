#include <cstdio>

#include "commands.hpp"
#include "scalinglab/lab/measure.hpp"

namespace scalinglab::cli {

void add_list(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("list", "List every measure with a one-line summary");
  cmd->callback([&action] {
    action = [] {
      for (const auto* m : world_registry().all()) std::printf("%-34s %s\n", m->name.c_str(), m->summary.c_str());
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
