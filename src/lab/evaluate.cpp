#include "scalinglab/lab/evaluate.hpp"

#include <algorithm>
#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/stats.hpp"
#include "scalinglab/lab/limits.hpp"

namespace scalinglab {

Stream task_stream(const Params& params, uint64_t seed, uint64_t run) {
  return Stream(stream_key(seed, stable_hash(params.stream_text()), run));
}

Record run_task(const Measure& m, const Params& params, uint64_t seed, uint64_t run) {
  Stream s = task_stream(params, seed, run);
  return m.fn(params, s);
}

namespace {
nlohmann::json number(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}
}  // namespace

nlohmann::json evaluate(const Measure& m, const Params& params, int threads) {
  const auto runs = static_cast<std::size_t>(params.integer("runs"));
  const auto seed = static_cast<uint64_t>(params.real("seed"));
  check_limit(static_cast<double>(runs), limits().max_tasks, m.name, "runs", "--max-tasks");
  const int workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(resolve_threads(threads)), runs));
  check_task(m, params, workers);
  // As in sweeps: one BLAS thread per run, so the numbers never depend on the thread count.
  set_blas_threads(1);
  set_task_threads(runs > 1 ? 1 : resolve_threads(threads));

  // Runs go in blocks, each summarised in run order: memory stays bounded for any `runs`, and the
  // summary is the same whatever the thread count.
  constexpr std::size_t kBlock = 4096;
  std::vector<Record> records;
  std::vector<std::string> scalar_names, series_names;
  std::vector<Summary> scalar_stats;
  std::vector<std::vector<Summary>> series_stats;
  Record first;  // runs == 1
  for (std::size_t begin = 0; begin < runs; begin += kBlock) {
    const std::size_t n = std::min(kBlock, runs - begin);
    records.assign(n, Record{});
    parallel_for(n, threads, [&](std::size_t i, int) { records[i] = run_task(m, params, seed, begin + i); });
    if (runs == 1) {  // the record is the answer: no copy, no summaries
      first = std::move(records[0]);
      break;
    }
    if (begin == 0) {  // names and lengths from run 0
      const Record& r0 = records[0];
      for (const auto& [name, v] : r0.scalars) scalar_names.push_back(name);
      for (const auto& [name, v] : r0.series) series_names.push_back(name);
      scalar_stats.assign(scalar_names.size(), Summary{});
      series_stats.resize(series_names.size());
      for (std::size_t k = 0; k < series_names.size(); ++k) series_stats[k].assign(r0.series[k].second.size(), Summary{});
    }
    for (const auto& r : records) {
      for (std::size_t k = 0; k < scalar_stats.size() && k < r.scalars.size(); ++k) scalar_stats[k].add(r.scalars[k].second);
      for (std::size_t k = 0; k < series_stats.size() && k < r.series.size(); ++k)
        for (std::size_t i = 0; i < series_stats[k].size() && i < r.series[k].second.size(); ++i)
          series_stats[k][i].add(r.series[k].second[i]);
    }
  }

  nlohmann::json out;
  out["measure"] = m.name;
  out["params"] = params.to_json();
  nlohmann::json metrics = nlohmann::json::object();
  // The shape depends on the measure, never on `runs`: a stochastic measure's scalar is always a
  // summary (std and sem 0 for one run, as in summary.csv: `count` says there was one), a
  // deterministic measure's always a number (its runs agree). Code written against runs = 1 then
  // works unchanged at runs = 100.
  const auto summary = [](double mean, double std, double sem, std::size_t count) {
    return nlohmann::json{{"mean", number(mean)}, {"std", number(std)}, {"sem", number(sem)}, {"count", count}};
  };
  if (runs == 1) {
    for (const auto& [name, v] : first.scalars)
      metrics[name] = m.deterministic ? number(v) : summary(v, 0.0, 0.0, 1);
    for (const auto& [name, v] : first.series) {
      nlohmann::json arr = nlohmann::json::array();
      for (double x : v) arr.push_back(number(x));
      metrics[name] = arr;
    }
  } else {
    for (std::size_t k = 0; k < scalar_stats.size(); ++k) {
      const Summary& s = scalar_stats[k];
      metrics[scalar_names[k]] = m.deterministic ? number(s.mean) : summary(s.mean, s.std(), s.sem(), s.count);
    }
    for (std::size_t k = 0; k < series_stats.size(); ++k) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& s : series_stats[k]) arr.push_back(number(s.mean));
      metrics[series_names[k]] = arr;
    }
  }
  out["metrics"] = metrics;
  return out;
}

}  // namespace scalinglab
