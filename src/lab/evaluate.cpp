#include "scalinglab/lab/evaluate.hpp"

#include <cmath>

#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/stats.hpp"

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
  std::vector<Record> records(runs);
  if (runs > 1 && resolve_threads(threads) > 1) set_blas_threads(1);
  set_task_threads(runs > 1 ? 1 : resolve_threads(threads));
  parallel_for(runs, threads, [&](std::size_t r, int) { records[r] = run_task(m, params, seed, r); });

  nlohmann::json out;
  out["measure"] = m.name;
  out["params"] = params.to_json();
  nlohmann::json metrics = nlohmann::json::object();
  if (runs == 1) {
    for (const auto& [name, v] : records[0].scalars) metrics[name] = number(v);
    for (const auto& [name, v] : records[0].series) {
      nlohmann::json arr = nlohmann::json::array();
      for (double x : v) arr.push_back(number(x));
      metrics[name] = arr;
    }
  } else {
    for (std::size_t k = 0; k < records[0].scalars.size(); ++k) {
      Summary s;
      for (const auto& r : records) s.add(r.scalars[k].second);
      metrics[records[0].scalars[k].first] = {
          {"mean", number(s.mean)}, {"std", number(s.std())}, {"sem", number(s.sem())}, {"count", s.count}};
    }
    for (std::size_t k = 0; k < records[0].series.size(); ++k) {
      const std::size_t len = records[0].series[k].second.size();
      nlohmann::json arr = nlohmann::json::array();
      for (std::size_t i = 0; i < len; ++i) {
        Summary s;
        for (const auto& r : records) s.add(r.series[k].second[i]);
        arr.push_back(number(s.mean));
      }
      metrics[records[0].series[k].first] = arr;
    }
  }
  out["metrics"] = metrics;
  return out;
}

}  // namespace scalinglab
