// `scalinglab slurm SWEEP --out DIR --array N ...`: a Slurm job array over the sweep's shards and
// a merge job depending on it, written as two sbatch scripts (and submitted with --submit).
// Everything from the command line that reaches a script is validated or shell-quoted.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "commands.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/external/plugin_library.hpp"
#include "scalinglab/external/python_world.hpp"
#include "scalinglab/run/runner.hpp"

namespace scalinglab::cli {

namespace fs = std::filesystem;

namespace {

// A word for bash, whatever it holds: single quotes, with ' written as '\''.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// #SBATCH lines are read by sbatch, not by a shell: only plain values go there.
bool plain_path(const std::string& s) { return std::regex_match(s, std::regex("[A-Za-z0-9_./+-]+")); }

void require(const std::string& value, const char* pattern, const std::string& option, const std::string& example) {
  if (!std::regex_match(value, std::regex(pattern)))
    throw InputError(option + " '" + value + "': expected " + example);
}

std::string exe_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("scalinglab") : p.string();
}

// Runs a program (no shell) and returns its exit status and standard output.
int run_program(const std::vector<std::string>& argv, std::string& out) {
  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(fd[1], STDOUT_FILENO);
    close(fd[0]);
    close(fd[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// Through the one writer: atomic, errno-checked (a full disk is an error, not an empty script), and a
// planted link at the path is replaced, never written through or chmodded.
void write_script(const fs::path& path, const std::string& text) { write_file(path.string(), text, 0755); }

}  // namespace

void add_slurm(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "slurm",
      "Write (and with --submit, submit) a Slurm job array running a sweep in N shards, each task resumable "
      "(--resume: a preempted or requeued task continues), and a merge job that starts when every shard succeeded "
      "(afterok). Scripts go to DIR/slurm/; shard k writes DIR/shard-k; the merge writes DIR.\n"
      "Example: scalinglab slurm experiments/grids/memory-train-grid.toml --out results/grid --array 64 "
      "--partition cpu --time 4:00:00 --cpus 8 --mem 16G --submit");
  struct Opts {
    std::string file, out, profile, partition, time, mem;
    int array = 0, cpus = 1;
    bool submit = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("file", o->file, "the sweep file")->required();
  cmd->add_option("--out", o->out, "results directory (shards in DIR/shard-k, merged results in DIR)")->required();
  cmd->add_option("--array", o->array, "number of shards = array tasks")->required()->check(CLI::Range(1, 100000));
  cmd->add_option("--profile", o->profile, "the sweep's profile (e.g. quick, paper)");
  cmd->add_option("--partition", o->partition, "Slurm partition");
  cmd->add_option("--time", o->time, "time limit per array task (Slurm format: MM, HH:MM:SS, D-HH:MM, ...)");
  cmd->add_option("--cpus", o->cpus, "CPUs per array task (the shard's --threads)")->capture_default_str()->check(
      CLI::Range(1, 1024));
  cmd->add_option("--mem", o->mem, "memory per array task (Slurm format: 4000, 16G, ...)");
  cmd->add_flag("--submit", o->submit, "submit both jobs with sbatch (the merge depends on the array: afterok)");
  cmd->callback([&action, o] {
    action = [o] {
      if (!o->partition.empty()) require(o->partition, "[A-Za-z0-9_.,-]+", "--partition", "a partition name");
      if (!o->time.empty())
        require(o->time, "[0-9]+(-[0-9]{1,2})?(:[0-9]{1,2}){0,2}", "--time", "a Slurm time such as 30, 4:00:00, 1-12");
      if (!o->mem.empty()) require(o->mem, "[0-9]+[KMGT]?", "--mem", "a Slurm memory such as 4000 or 16G");
      // The sweep is checked now, not in the queue.
      const Sweep sweep = load_sweep(o->file, o->profile, {});
      require_known_profile(sweep, o->profile);
      const fs::path sweep_path = fs::absolute(o->file), out = fs::absolute(o->out);
      const fs::path dir = out / "slurm";
      std::error_code ec;
      if (fs::is_symlink(dir, ec))  // scripts written there would land wherever the link points
        throw InputError(dir.string() + " is a symbolic link; choose another --out");
      fs::create_directories(dir, ec);
      if (ec || !fs::is_directory(fs::symlink_status(dir, ec)))
        throw InputError("cannot create " + dir.string() + ": " + (ec ? ec.message() : "not a directory"));
      const std::string bin = exe_path();
      const std::string name = std::regex_replace(sweep.name, std::regex("[^A-Za-z0-9_.-]"), "_");
      auto header = [&](const std::string& job, const std::string& log) {
        std::string h = "#!/bin/bash\n#SBATCH --job-name=" + job + "\n#SBATCH --cpus-per-task=" + std::to_string(o->cpus) + "\n";
        if (!o->partition.empty()) h += "#SBATCH --partition=" + o->partition + "\n";
        if (!o->time.empty()) h += "#SBATCH --time=" + o->time + "\n";
        if (!o->mem.empty()) h += "#SBATCH --mem=" + o->mem + "\n";
        if (plain_path(dir.string())) h += "#SBATCH --output=" + (dir / log).string() + "\n";
        return h;
      };
      const std::string n = std::to_string(o->array);
      const std::string profile = o->profile.empty() ? "" : " --profile " + shell_quote(o->profile);
      // The worlds loaded here (--plugin, --world) load in every shard and in the merge, by absolute path.
      std::string worlds;
      for (const auto& p : external::loaded_plugins()) worlds += " --plugin " + shell_quote(p);
      for (const auto& w : external::loaded_python_worlds()) worlds += " --world " + shell_quote(w);
      // --signal: SIGUSR1 to the shard (the batch shell, which execs scalinglab) 5 minutes before the
      // time limit: long tasks save their state; the SIGTERM at the limit saves again and stops.
      std::string shards = header(name, "shard-%a.log") + "#SBATCH --array=0-" + std::to_string(o->array - 1) + "\n" +
                           "#SBATCH --signal=B:USR1@300\n"
                           "set -euo pipefail\n"
                           "# Shard k of " + n + "; --resume: a requeued or preempted task continues where it stopped,\n"
                           "# long tasks from their checkpoints.\n"
                           "k=\"${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\"\n"
                           "exec " + shell_quote(bin) + worlds + " run " + shell_quote(sweep_path.string()) + profile +
                           " --shard \"$k/" + n + "\" --out " + shell_quote((out / "shard-").string()) +
                           "\"$k\" --threads \"${SLURM_CPUS_PER_TASK:-1}\" --resume --quiet\n";
      std::string merge = header(name + "-merge", "merge.log") +
                          "set -euo pipefail\n"
                          "shards=()\n"
                          "for ((k = 0; k < " + n + "; k++)); do shards+=(" + shell_quote((out / "shard-").string()) +
                          "\"$k\"); done\n"
                          "exec " + shell_quote(bin) + worlds + " merge " + shell_quote(out.string()) + " \"${shards[@]}\"\n";
      write_script(dir / "shards.sbatch", shards);
      write_script(dir / "merge.sbatch", merge);
      std::printf("wrote %s and %s\n", (dir / "shards.sbatch").c_str(), (dir / "merge.sbatch").c_str());
      if (!o->submit) {
        std::printf("submit with:\n  jobid=$(sbatch --parsable %s)\n  sbatch --dependency=afterok:\"${jobid%%%%;*}\" %s\n",
                    shell_quote((dir / "shards.sbatch").string()).c_str(), shell_quote((dir / "merge.sbatch").string()).c_str());
        return 0;
      }
      std::string id;
      if (run_program({"sbatch", "--parsable", (dir / "shards.sbatch").string()}, id) != 0)
        throw InputError("sbatch refused the job array (is Slurm available here?)");
      id = id.substr(0, id.find_first_of(";\n"));
      if (!std::regex_match(id, std::regex("[0-9]+"))) throw InputError("sbatch returned '" + id + "', not a job id");
      std::string merge_id;
      if (run_program({"sbatch", "--parsable", "--dependency=afterok:" + id, (dir / "merge.sbatch").string()}, merge_id) != 0)
        throw InputError("sbatch refused the merge job (the array " + id + " is queued)");
      merge_id = merge_id.substr(0, merge_id.find_first_of(";\n"));
      std::printf("submitted: array job %s (%d tasks), merge job %s after it\n", id.c_str(), o->array, merge_id.c_str());
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
