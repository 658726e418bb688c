// scalinglab: the command line. Errors are caught here once: bad input exits 2, failures 1.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>
#include <system_error>

#include "commands.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/external/plugin_library.hpp"
#include "scalinglab/external/python_world.hpp"
#include "scalinglab/fit/fit_monitor.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/lab/limits.hpp"

int main(int argc, char** argv) {
  // SIGUSR1 (Slurm's warning before a time limit, forwarded by mpirun) asks long tasks to save
  // their state; at any other moment, before a run or after it, it is a no-op rather than the end.
  scalinglab::install_checkpoint_signals(false);
  // Past a file-size limit (ulimit -f) a write fails with EFBIG, reported like a full disk, instead of
  // the process ending silently by SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "scalinglab: a laboratory for the theory of neural scaling laws.\n"
      "Measures (world.name) are functions of typed parameters; sweeps (TOML) run them over grids;\n"
      "`reproduce` checks a paper's claims. Start with `scalinglab list`."};
  app.require_subcommand(1);
  app.fallthrough();  // the limits below may also follow the subcommand
  app.set_version_flag("--version", "scalinglab " SCALINGLAB_VERSION);
  scalinglab::Limits limits;
  app.add_option("--max-points", limits.max_points, "refuse sweeps with more grid points (docs/reliability.md)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-tasks", limits.max_tasks, "refuse sweeps or evals with more tasks (grid points x runs)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-memory", limits.max_memory,
                 "refuse work whose concurrent runs would allocate more bytes (default: 90% of physical memory)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-work", limits.max_work,
                 "refuse runs estimated to take more elementary operations (default: no limit; docs/reliability.md)")
      ->check(CLI::PositiveNumber);
  // Worlds of the user's own, loaded before the command runs: every command sees their measures as
  // it sees the built-in ones (docs/worlds.md).
  std::vector<std::string> worlds, plugins;
  app.add_option("--world", worlds, "load a Python world (a .py file declaring measures; repeatable; docs/worlds.md)")
      ->type_name("FILE.py");
  app.add_option("--plugin", plugins, "load a C++ world plugin (a shared library; repeatable; docs/worlds.md)")
      ->type_name("LIB.so");
  scalinglab::cli::Action action;
  scalinglab::cli::add_list(app, action);
  scalinglab::cli::add_describe(app, action);
  scalinglab::cli::add_eval(app, action);
  scalinglab::cli::add_run(app, action);
  scalinglab::cli::add_merge(app, action);
  scalinglab::cli::add_slurm(app, action);
  scalinglab::cli::add_reproduce(app, action);
  scalinglab::cli::add_claims(app, action);
  scalinglab::cli::add_counterfactuals(app, action);
  scalinglab::cli::add_fit(app, action);
  scalinglab::cli::add_predict(app, action);
  scalinglab::cli::add_frontier(app, action);
  scalinglab::cli::add_extrapolate(app, action);
  scalinglab::cli::add_cache(app, action);
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "scalinglab: error: unknown command '%s' (commands: %s)\n",
                   scalinglab::terminal_text(argv[1]).c_str(), names.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "scalinglab: error: %s (see --help)\n", scalinglab::terminal_text(e.what()).c_str());
    return 2;
  }
  scalinglab::set_limits(limits);
  // Every error ends here as one sentence: bad input and exhausted resources (memory, disk, files)
  // exit 2, since the user can act on them; a failed computation exits 1. Messages quote file names
  // and values from the user: printed through terminal_text, an escape sequence among them is shown.
  using scalinglab::terminal_text;
  try {
    for (const auto& p : plugins) scalinglab::external::load_plugin(p);
    for (const auto& w : worlds) scalinglab::external::load_python_world(w);
    const int status = action ? action() : 0;
    // Output that never reached its file (stdout redirected to a full disk, /dev/full) is an error,
    // not a success with a cut table.
    std::cout.flush();
    errno = 0;
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
      const int e = errno;
      std::fprintf(stderr, "scalinglab: error: the output could not be written (%s)\n",
                   e ? std::strerror(e) : "a write failed");
      return 2;
    }
    return status;
  } catch (const scalinglab::fit::FitInterrupted& e) {
    std::fprintf(stderr, "\nscalinglab: interrupted (%s); nothing was written\n", e.what());
    return 130;
  } catch (const scalinglab::InputError& e) {
    std::fprintf(stderr, "scalinglab: error: %s\n", terminal_text(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "scalinglab: error: out of memory; reduce the sizes or --threads (docs/reliability.md lists the "
                 "limits checked before a run)\n");
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::string what = e.path1().string();
    if (!e.path2().empty()) what += " -> " + e.path2().string();
    std::fprintf(stderr, "scalinglab: error: %s: %s\n", terminal_text(what).c_str(), e.code().message().c_str());
    return 2;
  } catch (const std::invalid_argument& e) {  // a world's own check of its arguments
    std::fprintf(stderr, "scalinglab: error: invalid input: %s\n", terminal_text(e.what()).c_str());
    return 2;
  } catch (const std::system_error& e) {
    std::fprintf(stderr, "scalinglab: error: %s\n", e.code().message().c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scalinglab: failure: %s\n", terminal_text(e.what()).c_str());
    return 1;
  }
}
