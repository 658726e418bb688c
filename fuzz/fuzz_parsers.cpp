// Fuzz target for the parsers that read user text: sweep files (TOML, validated against the real
// measures, grids expanded), formulas (parsed and evaluated), CSV tables, results.jsonl lines and
// whole results files, the fitters' ranges and bounds (--grid, predict's inputs, --bounds), and
// saved fits (JSON, then predict) and fit requests (Python's JSON). The first byte picks the
// parser. An InputError is the expected answer to bad input; anything else escaping (another
// exception, a crash, a sanitizer report, a hang) is a bug.
//
// Built two ways (see fuzz/CMakeLists.txt): with libFuzzer (clang, -fsanitize=fuzzer) for
// coverage-guided runs, and with the deterministic driver fuzz_driver.cpp for bounded CI runs.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/law_expression.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace {

// A results file for read_results, which reads a path: one per process, removed at exit.
struct ScratchFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("scalinglab-fuzz-" + std::to_string(::getpid()) + ".jsonl")).string();
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

void parse_one(unsigned which, const std::string& text) {
  using namespace scalinglab;
  switch (which % 8) {
    case 0:
    case 4: {
      const Sweep s = parse_sweep(text, "fuzz.toml", which % 8 == 4 ? "quick" : "", {}, builtin_registry());
      expand_grid(s, builtin_registry());
      break;
    }
    case 5: {  // a whole results.jsonl: cut last lines, malformed lines in the middle
      static ScratchFile file;
      std::ofstream(file.path, std::ios::binary | std::ios::trunc) << text;
      read_results(file.path);
      break;
    }
    case 6: {  // --grid and predict's ranges (counted before they are made), --bounds
      try {
        fit::parse_grid_option(text);
      } catch (const InputError&) {
      }
      try {
        fit::parse_grid_option(text, "predict", limits().max_points, "--max-points");
      } catch (const InputError&) {
      }
      fit::parse_bounds(text);
      break;
    }
    case 7: {  // a saved fit, predicted at its inputs; the same JSON as a fit request
      const nlohmann::json j = fit::parse_json(text, "fuzz.json");
      try {
        fit::fit_request_from_json(j);
      } catch (const InputError&) {
      }
      std::map<std::string, std::vector<double>> inputs = {{"N", {7e10, 1e9}}, {"D", {1.4e12}}};
      if (j.is_object() && j.contains("saved") && j["saved"].is_object() && j["saved"].contains("inputs") &&
          j["saved"]["inputs"].is_array()) {
        inputs.clear();
        double v = 2;
        for (const auto& in : j["saved"]["inputs"])
          if (in.is_string()) inputs[in.get<std::string>()] = {v *= 3, v * 7};
      }
      fit::predict_saved(j, inputs, 0.9);
      break;
    }
    case 1: {
      const Expression e(text);
      e.eval([](const std::string& name) -> std::optional<double> {
        if (name == "x") return 2.0;
        if (name == "y") return -0.5;
        return std::nullopt;
      });
      e.variables();
      break;
    }
    case 2: {
      const fit::DataTable t = fit::parse_csv(text, "fuzz.csv");
      for (const auto& name : t.names) {
        try {
          t.numbers(name);
        } catch (const InputError&) {
        }
      }
      break;
    }
    default: {
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception&) {
        return;  // not JSON (or a number past double): read_results reports the line as malformed
      }
      task_from_json(j);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Small limits: a fuzzed grid may ask for millions of points, which is refused, not expanded.
  scalinglab::Limits l;
  l.max_points = 2000;
  scalinglab::set_limits(l);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    parse_one(data[0], text);
  } catch (const scalinglab::InputError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: unexpected exception (%s) on parser %u\n", e.what(), data[0] % 8u);
    std::abort();
  }
  return 0;
}
