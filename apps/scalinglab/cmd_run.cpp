#include "commands.hpp"

namespace scalinglab::cli {

void add_run(CLI::App& app, Action& action) {
  (void)app;
  (void)action;
}

}  // namespace scalinglab::cli
