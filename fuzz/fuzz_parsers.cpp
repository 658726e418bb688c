// Fuzz target for the parsers that read user text: sweep files (TOML, validated against the real
// measures, grids expanded), formulas (parsed and evaluated), CSV tables and results.jsonl lines.
// The first byte picks the parser. An InputError is the expected answer to bad input; anything
// else escaping (another exception, a crash, a sanitizer report, a hang) is a bug.
//
// Built two ways (see fuzz/CMakeLists.txt): with libFuzzer (clang, -fsanitize=fuzzer) for
// coverage-guided runs, and with the deterministic driver fuzz_driver.cpp for bounded CI runs.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace {

void parse_one(unsigned which, const std::string& text) {
  using namespace scalinglab;
  switch (which % 4) {
    case 0: {
      const Sweep s = parse_sweep(text, "fuzz.toml", which & 4 ? "quick" : "", {}, builtin_registry());
      expand_grid(s, builtin_registry());
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
    std::fprintf(stderr, "fuzz: unexpected exception (%s) on parser %u\n", e.what(), data[0] % 4u);
    std::abort();
  }
  return 0;
}
