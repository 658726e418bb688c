#pragma once
// `reproduce`: runs every sweep of a paper's experiments folder and writes report.md with the
// figures inline and one PASS/FAIL line per claim (measured vs expected).
#include <cstdint>
#include <string>
#include <vector>

#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

struct ReproduceOptions {
  std::string paper;           // folder name under experiments/, e.g. "cabannes2023"
  std::string profile = "quick";
  std::string out_dir;         // default: results/<paper>-<profile>
  std::string experiments_dir; // default: found next to the sources or the working directory
  int threads = 0;
  bool resume = false;
  bool quiet = false;
  double checkpoint_every = 600;  // as RunOptions
  bool handle_signals = false;
};

struct ReproduceOutcome {
  std::string report_path;
  int passed = 0, failed = 0;
};

// Locates experiments/ (working directory, then the source tree the binary was built from).
std::string find_experiments_dir(const std::string& hint = "");

// The folder of a paper's sweeps, experiments/PAPER; InputError for a missing experiments folder, a
// paper or profile that is not a plain name, an unknown paper (listing the known ones) or a folder
// without sweep files.
std::string paper_folder(const std::string& experiments_dir, const std::string& paper, const std::string& profile);

// Loads every sweep of the paper under the options' profile, in name order (all before anything
// runs, so a typo in the last file costs no time). InputError for an unknown paper or a profile none
// of its files knows.
std::vector<Sweep> load_paper_sweeps(const ReproduceOptions& options);

ReproduceOutcome reproduce(const ReproduceOptions& options);

// report.html inlines a figure of `bytes` (true, adding it to `inlined`) when it is small and the
// page's inlined total stays within its budget, so that the page stands alone yet stays light
// (under ~3 MB); otherwise the figure is linked from its sweep's folder.
bool inline_figure(std::uintmax_t bytes, std::uintmax_t& inlined);

}  // namespace scalinglab
