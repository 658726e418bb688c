// Sweep files: TOML -> Sweep, validated against the measure's declaration (docs/sweeps.md). The
// file's sections are read in order, each by the SweepReader member of its own file (sweep_reader.hpp).
#include "scalinglab/sweep/sweep.hpp"

#include <filesystem>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/lab/limits.hpp"
#include "sweep_reader.hpp"

namespace scalinglab {

Sweep parse_sweep(const std::string& text, const std::string& path, const std::string& profile,
                  const std::vector<std::string>& sets, const Registry& registry) {
  SweepReader r(path);
  toml::table doc;
  try {
    doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw InputError(path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                     ": malformed TOML: " + std::string(e.description()));
  }
  r.allow_keys(doc, {"measure", "title", "runs", "seed", "params", "grid", "profile", "plot", "check", "part", "reduced"},
               "top level");
  Sweep s;
  s.path = path;
  s.name = std::filesystem::path(path).stem().string();
  s.text = text;
  if (doc.contains("measure") && doc.contains("part"))
    r.fail(doc.get("part"), "part: a sweep has either one `measure` or [[part]] tables, not both");
  if (auto v = doc.get("part")) {
    r.parts(v, registry, s);
    s.measure = s.parts.front().measure;
  } else {
    if (!doc.contains("measure"))
      throw InputError(path + ": missing key 'measure' (e.g. measure = \"memory.error\"), or [[part]] tables");
    s.measure = r.string(doc.get("measure"), "measure");
    const Measure* m = nullptr;
    try {
      m = &registry.get(s.measure);
    } catch (const InputError& e) {
      r.fail(doc.get("measure"), std::string("measure: ") + e.what());
    }
    r.set_measure(m);
  }
  if (auto v = doc.get("title")) s.title = r.string(v, "title");
  if (auto v = doc.get("reduced")) s.reduced = r.string(v, "reduced");
  if (auto v = doc.get("runs")) s.runs = r.integer(v, "runs", 1);
  if (auto v = doc.get("seed")) s.seed = static_cast<uint64_t>(r.integer(v, "seed", 0));
  if (auto v = doc.get("params")) r.params(v, "[params]", s);
  if (auto v = doc.get("grid")) {
    const std::size_t fixed = s.fixed.size();
    r.grid(v, "[grid]", s);
    if (s.fixed.size() != fixed) r.fail(v, "[grid]: a parameter is both fixed in [params] and set by the grid");
  }
  if (auto v = doc.get("profile")) r.profiles(v, profile, s);
  r.set_overrides(sets, s);
  if (auto v = doc.get("plot")) s.plot = r.plot(v);
  if (s.plot && s.plot->series == "part")
    for (const auto& p : s.parts) s.plot->series_labels[p.name] = p.label;
  if (s.plot)
    for (const auto& p : s.parts) {
      if (p.theory) s.plot->theory_parts.push_back(p.name);
      s.plot->part_labels[p.name] = p.label;
      s.plot->part_metrics[p.name] = p.metrics;
    }
  if (auto v = doc.get("check")) r.checks(v, profile, s);
  check_limit(grid_size(s, registry), limits().max_points, path, "grid points", "--max-points");
  expand_grid(s, registry);  // resolves every point now: bad values fail before anything runs
  return s;
}

Sweep load_sweep(const std::string& path, const std::string& profile, const std::vector<std::string>& sets,
                 const Registry& registry) {
  return parse_sweep(read_file(path, kMaxSweepFileBytes, "sweep file"), path, profile, sets, registry);
}

Sweep load_sweep(const std::string& path, const std::string& profile, const std::vector<std::string>& sets) {
  return load_sweep(path, profile, sets, world_registry());
}

}  // namespace scalinglab
