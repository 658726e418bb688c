// A small driver for the PLRF world without the lab: runs a grid of (d, f) with several runs
// through the plugin's C table on a few threads, then finds, for each budget f, the model size d*
// minimising the mean loss (the vertex of a parabola in log d through the lowest point and its
// neighbours, as the lab's `optimum` check does) and fits the slope of log d* against log f. It also
// fits that slope run by run (each run's own argmin), to give its spread over seeds.
//
//   plrf_sweep --alpha 1.5 --beta 2 --v 4096 --d 'logspace(16,1024,7)' --f 'logspace(1e4,1e7,7)'
//              --runs 4 --threads 2 [--measure plrf.expected] [--lr 0.5] [--batch 1] [--sampler eigen]
//              [--seed 1] [--csv out.csv] [--fmin F] [--fmax F]
//
// Seeds: run r of every (d, f) uses the key (seed, alpha, beta, v, r), as the lab keys a run by the
// parameters not declared same-world; the lab's own hash differs, so numbers differ from a lab run
// by sampling only.
#include <scalinglab/world_plugin.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "plrf_core.hpp"

// The plugin's entry points (defined by SCALINGLAB_WORLD in plrf.cpp, linked into this program).
extern "C" uint32_t scalinglab_plugin_abi();
extern "C" const scalinglab_plugin_table* scalinglab_plugin();

namespace {

struct Sink {
  std::map<std::string, double> scalars;
  std::string error;
};

}  // namespace

struct scalinglab_sink {
  Sink* sink;
};

namespace {

void host_scalar(scalinglab_sink* s, const char* n, double v) { s->sink->scalars[n] = v; }
void host_series(scalinglab_sink*, const char*, const double*, size_t) {}
void host_fail(scalinglab_sink* s, const char* m) { s->sink->error = m; }
const scalinglab_host kHost{&host_scalar, &host_series, &host_fail};

std::vector<double> parse_values(const std::string& text, bool integral) {
  std::vector<double> out;
  double a, b;
  int n;
  if (std::sscanf(text.c_str(), "logspace(%lf,%lf,%d)", &a, &b, &n) == 3 && n >= 2 && a > 0 && b > 0) {
    for (int i = 0; i < n; ++i) out.push_back(a * std::pow(b / a, static_cast<double>(i) / (n - 1)));
  } else {
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t comma = text.find(',', pos);
      out.push_back(std::stod(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos)));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  if (integral) {
    for (auto& x : out) x = std::round(x);
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

// The lab's optimum: parabola in log x through the lowest point and its neighbours (y linear).
double argmin_x(const std::vector<double>& x, const std::vector<double>& y, bool* edge) {
  size_t i = static_cast<size_t>(std::min_element(y.begin(), y.end()) - y.begin());
  *edge = (i == 0 || i + 1 == x.size());
  if (*edge) return x[i];
  const double x0 = std::log(x[i - 1]), x1 = std::log(x[i]), x2 = std::log(x[i + 1]);
  const double y0 = y[i - 1], y1 = y[i], y2 = y[i + 1];
  const double den = (x0 - x1) * (x0 - x2) * (x1 - x2);
  const double A = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / den;
  const double B = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / den;
  if (A > 0) return std::exp(std::clamp(-B / (2 * A), x0, x2));
  return x[i];
}

struct Fit {
  double slope = NAN, intercept = NAN, r2 = NAN;
};
Fit fit_line(const std::vector<double>& lx, const std::vector<double>& ly) {
  Fit f;
  const size_t n = lx.size();
  if (n < 2) return f;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += lx[i], my += ly[i];
  mx /= n, my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < n; ++i)
    sxx += (lx[i] - mx) * (lx[i] - mx), sxy += (lx[i] - mx) * (ly[i] - my), syy += (ly[i] - my) * (ly[i] - my);
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"measure", "plrf.loss"}, {"alpha", "1.5"}, {"beta", "2"}, {"v", "4096"},
                                            {"d", "logspace(16,1024,7)"}, {"f", "logspace(1e4,1e7,7)"}, {"runs", "4"},
                                            {"threads", "2"}, {"lr", "0.5"}, {"batch", "1"}, {"sampler", "eigen"},
                                            {"seed", "1"}, {"points", "40"}, {"csv", ""}, {"fmin", "0"}, {"fmax", "1e300"}};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k.rfind("--", 0) != 0 || !opt.count(k.substr(2))) {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
    opt[k.substr(2)] = argv[i + 1];
  }
  const scalinglab_plugin_table* table = scalinglab_plugin();
  const scalinglab_measure_entry* entry = nullptr;
  for (size_t i = 0; i < table->count; ++i)
    if (std::string(table->measures[i].declaration_json).find("\"name\":\"" + opt["measure"] + "\"") != std::string::npos)
      entry = &table->measures[i];
  if (!entry) {
    std::fprintf(stderr, "no measure %s\n", opt["measure"].c_str());
    return 2;
  }
  const double alpha = std::stod(opt["alpha"]), beta = std::stod(opt["beta"]);
  const int64_t v = std::stoll(opt["v"]), batch = std::stoll(opt["batch"]);
  const int runs = std::stoi(opt["runs"]), threads = std::max(1, std::stoi(opt["threads"]));
  const uint64_t seed = std::stoull(opt["seed"]);
  const std::vector<double> ds = parse_values(opt["d"], true), fs = parse_values(opt["f"], false);

  struct Task {
    size_t id, fi;
    double d, f;
    int run;
    double loss = NAN, seconds = 0, work = 0;
  };
  std::vector<Task> tasks;
  for (size_t fi = 0; fi < fs.size(); ++fi)
    for (size_t di = 0; di < ds.size(); ++di)
      for (int r = 0; r < runs; ++r) tasks.push_back({tasks.size(), fi, ds[di], fs[fi], r});
  uint64_t world_hash = plrf::stream_key(seed, static_cast<uint64_t>(std::llround(alpha * 1e6)),
                                         static_cast<uint64_t>(std::llround(beta * 1e6)) ^ (static_cast<uint64_t>(v) << 32));
  const bool with_sampler = opt["measure"] == "plrf.loss";
  auto call = [&](Task& t) {
    std::vector<std::string> names = {"alpha", "beta", "v", "d", "f", "steps", "batch", "lr", "points"};
    const double steps = std::floor(t.f / (t.d * static_cast<double>(batch)));
    std::vector<double> numbers = {alpha, beta, static_cast<double>(v), t.d, t.f, steps, static_cast<double>(batch),
                                   std::stod(opt["lr"]), std::stod(opt["points"])};
    std::vector<std::string> texts;
    for (double x : numbers) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", x);
      texts.push_back(buf);
    }
    if (with_sampler) names.push_back("sampler"), numbers.push_back(NAN), texts.push_back(opt["sampler"]);
    std::vector<const char*> np, tp;
    for (size_t i = 0; i < names.size(); ++i) np.push_back(names[i].c_str()), tp.push_back(texts[i].c_str());
    scalinglab_args a{names.size(), np.data(), tp.data(), numbers.data(),
                      plrf::stream_key(world_hash, 0x52554e, static_cast<uint64_t>(t.run))};
    t.work = entry->work(entry->context, &a);
    return a;
  };
  for (auto& t : tasks) (void)call(t);  // work estimates, to start the longest first
  std::vector<size_t> order(tasks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tasks[a].work > tasks[b].work; });

  const auto start = std::chrono::steady_clock::now();
  std::atomic<size_t> next{0};
  std::atomic<int> failures{0};
  auto worker = [&] {
    for (;;) {
      const size_t k = next.fetch_add(1);
      if (k >= order.size()) return;
      Task& t = tasks[order[k]];
      // Rebuild the arguments on this thread (they point into local strings).
      std::vector<std::string> names = {"alpha", "beta", "v", "d", "f", "steps", "batch", "lr", "points"};
      const double steps = std::floor(t.f / (t.d * static_cast<double>(batch)));
      std::vector<double> numbers = {alpha, beta, static_cast<double>(v), t.d, t.f, steps, static_cast<double>(batch),
                                     std::stod(opt.at("lr")), std::stod(opt.at("points"))};
      std::vector<std::string> texts;
      for (double x : numbers) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", x);
        texts.push_back(buf);
      }
      if (with_sampler) names.push_back("sampler"), numbers.push_back(NAN), texts.push_back(opt.at("sampler"));
      std::vector<const char*> np, tp;
      for (size_t i = 0; i < names.size(); ++i) np.push_back(names[i].c_str()), tp.push_back(texts[i].c_str());
      scalinglab_args a{names.size(), np.data(), tp.data(), numbers.data(),
                        plrf::stream_key(world_hash, 0x52554e, static_cast<uint64_t>(t.run))};
      Sink sink;
      scalinglab_sink s{&sink};
      const auto t0 = std::chrono::steady_clock::now();
      if (entry->run(entry->context, &a, &kHost, &s) != 0 || !sink.error.empty()) {
        std::fprintf(stderr, "task d=%g f=%g run %d failed: %s\n", t.d, t.f, t.run, sink.error.c_str());
        ++failures;
        continue;
      }
      t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      t.loss = sink.scalars["loss"];
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double cpu = 0;
  for (const auto& t : tasks) cpu += t.seconds;

  // Means per (f, d), the argmin per f, the slope.
  FILE* csv = opt["csv"].empty() ? nullptr : std::fopen(opt["csv"].c_str(), "w");
  if (csv) std::fprintf(csv, "f,d,loss,loss_sem,count\n");
  const double fmin = std::stod(opt["fmin"]), fmax = std::stod(opt["fmax"]);
  std::vector<double> lf, ld;
  std::vector<std::vector<double>> per_run_ld(runs);
  std::printf("measure %s alpha=%g beta=%g v=%lld batch=%lld lr=%s runs=%d\n", opt["measure"].c_str(), alpha, beta,
              static_cast<long long>(v), static_cast<long long>(batch), opt["lr"].c_str(), runs);
  for (size_t fi = 0; fi < fs.size(); ++fi) {
    std::vector<double> means, sems;
    std::vector<std::vector<double>> by_run(runs);
    for (double d : ds) {
      std::vector<double> ls;
      for (const auto& t : tasks)
        if (t.fi == fi && t.d == d) ls.push_back(t.loss), by_run[t.run].push_back(t.loss);
      double m = 0;
      for (double x : ls) m += x;
      m /= ls.size();
      double var = 0;
      for (double x : ls) var += (x - m) * (x - m);
      const double sem = ls.size() > 1 ? std::sqrt(var / (ls.size() - 1) / ls.size()) : 0;
      means.push_back(m), sems.push_back(sem);
      if (csv) std::fprintf(csv, "%.6g,%g,%.10g,%.4g,%zu\n", fs[fi], d, m, sem, ls.size());
    }
    bool edge;
    const double dstar = argmin_x(ds, means, &edge);
    std::printf("f=%-10.4g d*=%-9.4g%s  loss:", fs[fi], dstar, edge ? " (edge)" : "       ");
    for (size_t i = 0; i < ds.size(); ++i) std::printf(" %g:%.4g", ds[i], means[i]);
    std::printf("\n");
    if (fs[fi] >= fmin && fs[fi] <= fmax) {
      lf.push_back(std::log(fs[fi])), ld.push_back(std::log(dstar));
      for (int r = 0; r < runs; ++r) {
        bool e2;
        per_run_ld[r].push_back(std::log(argmin_x(ds, by_run[r], &e2)));
      }
    }
  }
  if (csv) std::fclose(csv);
  const Fit fit = fit_line(lf, ld);
  std::printf("slope of log d* on log f (means over runs): %.4f (R^2 %.3f) over %zu budgets\n", fit.slope, fit.r2, lf.size());
  if (runs > 1) {
    // Bootstrap over runs: resample the runs with replacement, average, refit the argmins and the slope.
    plrf::Rng boot(12345);
    std::vector<double> bs;
    // loss[fi][di][run]
    std::vector<std::vector<std::vector<double>>> L(fs.size(), std::vector<std::vector<double>>(ds.size(), std::vector<double>(runs)));
    for (const auto& t : tasks)
      L[t.fi][static_cast<size_t>(std::find(ds.begin(), ds.end(), t.d) - ds.begin())][t.run] = t.loss;
    for (int rep = 0; rep < 400; ++rep) {
      std::vector<int> pick(runs);
      for (int& p : pick) p = static_cast<int>(boot.next() % static_cast<uint64_t>(runs));
      std::vector<double> blf, bld;
      for (size_t fi = 0; fi < fs.size(); ++fi) {
        if (fs[fi] < fmin || fs[fi] > fmax) continue;
        std::vector<double> means;
        for (size_t di = 0; di < ds.size(); ++di) {
          double m = 0;
          for (int p : pick) m += L[fi][di][p];
          means.push_back(m / runs);
        }
        bool e3;
        blf.push_back(std::log(fs[fi])), bld.push_back(std::log(argmin_x(ds, means, &e3)));
      }
      bs.push_back(fit_line(blf, bld).slope);
    }
    double bm = 0, bv = 0;
    for (double x : bs) bm += x;
    bm /= bs.size();
    for (double x : bs) bv += (x - bm) * (x - bm);
    std::sort(bs.begin(), bs.end());
    std::printf("bootstrap over runs (400 resamples) of the slope of the mean landscape: mean %.4f, se %.4f, 95%% [%.4f, %.4f]\n",
                bm, std::sqrt(bv / (bs.size() - 1)), bs[10], bs[389]);
    std::vector<double> slopes;
    for (int r = 0; r < runs; ++r) slopes.push_back(fit_line(lf, per_run_ld[r]).slope);
    double m = 0;
    for (double s : slopes) m += s;
    m /= runs;
    double var = 0;
    for (double s : slopes) var += (s - m) * (s - m);
    const double sd = std::sqrt(var / (runs - 1));
    std::printf("slope run by run:");
    for (double s : slopes) std::printf(" %.4f", s);
    std::printf("  mean %.4f, std %.4f, sem %.4f\n", m, sd, sd / std::sqrt(static_cast<double>(runs)));
  }
  std::printf("tasks %zu, wall %.1f s on %d threads, CPU (sum of task times) %.1f s, failures %d\n", tasks.size(), wall,
              threads, cpu, failures.load());
  return failures ? 1 : 0;
}
