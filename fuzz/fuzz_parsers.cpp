// Fuzz target for the parsers that read user text: sweep files (TOML, validated against the real
// measures, grids expanded), formulas (parsed and evaluated), tables (CSV, decimal commas, JSON and
// JSON lines), results.jsonl lines and whole results files, the fitters' ranges and bounds (--grid,
// predict's inputs, --bounds), and saved fits (JSON, then predict) and fit requests (Python's
// JSON), checkpoint files (the layout
// and its MAC), a signed factor.train state edited byte by byte (every field checked against the
// task), and a results file's tail repaired before appending. The first byte picks the parser. An InputError is the expected answer to bad input; anything else escaping (another
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
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/factor/factor_task.hpp"
#include "scalinglab/factor/factor_training.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/json_table.hpp"
#include "scalinglab/fit/table_format.hpp"
#include "scalinglab/fit/law_expression.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace {

// A results file for read_results, which reads a path: one per process, removed at exit.
struct ScratchFile {
  explicit ScratchFile(const char* tag)
      : path((std::filesystem::temp_directory_path() / ("scalinglab-fuzz-" + std::to_string(::getpid()) + tag)).string()) {}
  std::string path;
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

// A tiny factor.train task and a valid state of it, saved after 5 of its 12 epochs.
struct FactorState {
  scalinglab::factor::FactorTask task;
  scalinglab::factor::TrainSpec spec;
  std::string state;
  static FactorState make() {
    using namespace scalinglab;
    using namespace scalinglab::factor;
    FactorSpec fs;
    fs.input = parse_factors("2x3");
    fs.output = parse_factors("2x2");
    Stream s(3);
    FactorState f{FactorTask(fs, s), TrainSpec{}, ""};
    f.spec.d = 4, f.spec.h = 8, f.spec.epochs = 12, f.spec.evals = 4;
    static ScratchFile file("-made.state");
    TaskCheckpoint saving(file.path, "fuzz task", 0, false);
    int epoch = 0;
    f.spec.on_epoch = [&epoch] {
      if (++epoch == 5) request_checkpoints(false);
    };
    f.spec.checkpoint = &saving;
    Stream train_stream(4);
    train(f.task, f.spec, train_stream);
    f.spec.on_epoch = nullptr;
    const std::string text = read_file(file.path, 1 << 20, "checkpoint");
    const std::size_t head = 24 + 8 + std::string("fuzz task").size() + 8;
    f.state = text.substr(head, text.size() - head - 32);
    return f;
  }
};

void parse_one(unsigned which, const std::string& text) {
  using namespace scalinglab;
  switch (which % 11) {
    case 8: {  // a checkpoint file as received: layout, identity, size, MAC
      static ScratchFile file("-received.state");
      std::ofstream(file.path, std::ios::binary | std::ios::trunc) << text;
      TaskCheckpoint(file.path, "fuzz task", 0, true).load(1 << 16);
      break;
    }
    case 9: {  // a state signed by the key, its bytes edited: restored only if every field fits the task
      static FactorState f = FactorState::make();
      std::string state = f.state;
      for (std::size_t k = 0; k + 2 < text.size(); k += 3) {
        const std::size_t at = (static_cast<unsigned char>(text[k]) << 8 | static_cast<unsigned char>(text[k + 1])) %
                               (state.size() + 1);
        if (at == state.size()) state.resize(static_cast<unsigned char>(text[k + 2]) % (state.size() + 1));
        else state[at] = text[k + 2];
      }
      static ScratchFile file("-signed.state");
      TaskCheckpoint(file.path, "fuzz task", 0, false).save(state);
      TaskCheckpoint loading(file.path, "fuzz task", 0, true);
      factor::TrainSpec spec = f.spec;
      spec.checkpoint = &loading;
      Stream train_stream(4);
      factor::train(f.task, spec, train_stream);
      break;
    }
    case 10: {  // a results file whose tail is repaired before appending
      static ScratchFile file("-tail.jsonl");
      std::ofstream(file.path, std::ios::binary | std::ios::trunc) << text;
      ResultsWriter writer(file.path);
      break;
    }
    case 0:
    case 4: {
      const Sweep s = parse_sweep(text, "fuzz.toml", which % 8 == 4 ? "quick" : "", {}, world_registry());
      expand_grid(s, world_registry());
      break;
    }
    case 5: {  // a whole results.jsonl: cut last lines, malformed lines in the middle
      static ScratchFile file(".jsonl");
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
    case 2: {  // a table: CSV, ';' with decimal commas, a JSON table, JSON lines
      fit::TableFormat european;
      european.delimiter = ';';
      european.decimal = ',';
      for (int form = 0; form < 4; ++form) {
        fit::DataTable t;
        try {
          t = form == 0   ? fit::parse_csv(text, "fuzz.csv")
              : form == 1 ? fit::parse_table(text, "fuzz.csv", european)
              : form == 2 ? fit::parse_json_table(text, "fuzz.json")
                          : fit::parse_jsonl_table(text, "fuzz.jsonl");
        } catch (const InputError&) {
          continue;
        }
        for (const auto& name : t.names) {
          try {
            t.numbers(name);
          } catch (const InputError&) {
          }
        }
        for (std::size_t i = 0; i < t.rows(); ++i) t.header_row(i);
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
  // The checkpoint key is made in a folder of this process's own, never in the user's ~/.config.
  static const std::string config =
      (std::filesystem::temp_directory_path() / ("scalinglab-fuzz-config-" + std::to_string(::getpid()))).string();
  ::setenv("XDG_CONFIG_HOME", config.c_str(), 1);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(config, ec);
  });
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
    std::fprintf(stderr, "fuzz: unexpected exception (%s) on parser %u\n", e.what(), data[0] % 11u);
    std::abort();
  }
  return 0;
}
