// The Python extension `_scalinglab`: pybind11 glue only. Values cross the boundary as text
// (parameters), plain Python objects (JSON records) or column lists (tables); the pure-Python
// package `scalinglab` (python/scalinglab/) turns them into the public API with numpy/pandas.
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <chrono>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/core/duration.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/extrapolate/extrapolation_benchmark.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/fit_report.hpp"
#include "scalinglab/fit/fit_figure.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/frontier_request.hpp"
#include "scalinglab/fit/table_format.hpp"
#include "monitored.hpp"
#include "scalinglab/external/plugin_library.hpp"
#include "scalinglab/external/python_world.hpp"
#include "scalinglab/lab/describe.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/results/aggregate.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/results/task_cache.hpp"
#include "scalinglab/run/runner.hpp"

namespace py = pybind11;
using namespace pybind11::literals;
using nlohmann::json;

namespace scalinglab {
namespace {

// Text for Python: bytes that are not UTF-8 (a cell or a column name of a user's CSV file, which
// the command line prints as they are) shown as \xNN escapes rather than raised as a
// UnicodeDecodeError.
py::str text_to_py(const std::string& text) {
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

// An exception of the core as `type`, its message escaped as the command line prints it
// (core/text_escape.hpp: a byte that is not UTF-8 as \xFF, control characters made visible), so a
// message reads the same in both.
void set_python_error(PyObject* type, const char* what) {
  const std::string text = terminal_text(what);
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
  if (!s) return;  // the decoding's own error (out of memory) is the one raised
  PyErr_SetObject(type, s);
  Py_DECREF(s);
}

// JSON -> Python objects (objects keep nlohmann's key order, which is sorted by name).
py::object to_py(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return py::none();
    case json::value_t::boolean: return py::bool_(j.get<bool>());
    case json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case json::value_t::number_float: return py::float_(j.get<double>());
    case json::value_t::string: return text_to_py(j.get_ref<const std::string&>());
    case json::value_t::array: {
      py::list out;
      for (const auto& x : j) out.append(to_py(x));
      return out;
    }
    case json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[text_to_py(k)] = to_py(v);
      return out;
    }
    default: return py::none();
  }
}

const Measure& measure(const std::string& name) { return world_registry().get(name); }

py::list measure_names() {
  py::list out;
  for (const auto* m : world_registry().all()) out.append(m->name);
  return out;
}

// {"measure", "params", "metrics"} exactly as `scalinglab eval --json` prints it.
py::object evaluate_text(const std::string& name, const std::map<std::string, std::string>& given, int threads) {
  json out;
  {
    py::gil_scoped_release nogil;
    const Measure& m = measure(name);
    out = evaluate(m, resolve_params(m.params, given, m.name), threads);
  }
  return to_py(out);
}

// The aggregated table as columns: [(name, kind, values)], kind one of int, float, str, bool.
py::list table_columns(const Table& t) {
  py::list cols;
  for (std::size_t k = 0; k < t.param_names.size(); ++k) {
    const std::string& name = t.param_names[k];
    // A column some rows lack (multi-part sweeps) holds "" (text) or NaN (numbers, then float).
    bool missing = false;
    for (const auto& row : t.rows) missing = missing || !row.params.has(name);
    ParamType type = t.param_specs[k]->type;
    if (type == ParamType::Text) type = ParamType::Choice;  // text either way
    if (missing && type != ParamType::Choice) type = ParamType::Real;
    py::list values;
    for (const auto& row : t.rows) {
      if (!row.params.has(name)) {  // a parameter of another part's measure
        values.append(type == ParamType::Choice ? py::object(py::str("")) : py::object(py::float_(NAN)));
        continue;
      }
      const auto& e = row.params.entry(name);
      switch (type) {
        case ParamType::Choice: values.append(e.text); break;
        case ParamType::Bool: values.append(py::bool_(e.number != 0)); break;
        case ParamType::Int: values.append(py::int_(static_cast<int64_t>(e.number))); break;
        default: values.append(py::float_(e.number));
      }
    }
    const char* kind = type == ParamType::Choice ? "str"
                       : type == ParamType::Bool ? "bool"
                       : type == ParamType::Int  ? "int"
                                                 : "float";
    cols.append(py::make_tuple(name, kind, values));
  }
  for (std::size_t k = 0; k < t.metric_names.size(); ++k) {
    py::list mean, std, sem;
    for (const auto& row : t.rows) {
      mean.append(row.mean[k]);
      std.append(row.std[k]);
      sem.append(row.sem[k]);
    }
    const auto& name = t.metric_names[k];
    cols.append(py::make_tuple(name, "float", mean));
    cols.append(py::make_tuple(name + "_std", "float", std));
    cols.append(py::make_tuple(name + "_sem", "float", sem));
  }
  py::list count;
  for (const auto& row : t.rows) count.append(row.count);
  cols.append(py::make_tuple("count", "int", count));
  return cols;
}

// Runs a sweep read from a file (`text` empty) or given as TOML text named by `path`, then
// aggregates its results.jsonl at full precision. `progress` (None or callable(done, total,
// seconds_left)) is called after each task with the GIL held; Ctrl-C (seen when a task finishes on
// the calling thread, the only one Python delivers signals to) or an exception from `progress`
// stops the run: running tasks finish and are recorded, then KeyboardInterrupt or that exception
// is raised. Returns {"columns", "axes" (the swept parameters, `part` first for a sweep of parts),
// "metrics" (the scalar metrics), "checks", "out_dir", "tasks_total", "tasks_run", "tasks_skipped",
// "tasks_failed", "first_failure", "tasks_reused", "cache_refused", "cache_dir"}. `cache_dir`: the
// task cache read and written (empty: none).
py::dict run_sweep_py(const std::string& path, const std::string& text, const std::string& out_dir, int threads,
                      bool resume, const std::string& profile, const std::vector<std::string>& sets, bool quiet,
                      py::object progress, const std::string& checkpoint_every, const std::string& cache_dir) {
  RunOutcome outcome;
  Table table;
  std::vector<std::string> axes;  // the swept parameters, for the table's default columns
  bool interrupted = false;
  std::string stopped;
  std::unique_ptr<py::error_already_set> callback_error;
  {
    py::gil_scoped_release nogil;
    const Sweep sweep = text.empty() ? load_sweep(path, profile, sets)
                                     : parse_sweep(text, path, profile, sets, world_registry());
    require_known_profile(sweep, profile);
    if (!sweep.parts.empty()) axes.push_back("part");
    for (const auto& axis : sweep.grid) {
      axes.push_back(axis.name);
      for (const auto& set : axis.linked)  // a linked axis sweeps every parameter it sets
        for (const auto& [name, value] : set)
          if (std::find(axes.begin(), axes.end(), name) == axes.end()) axes.push_back(name);
    }
    RunOptions opts;
    opts.out_dir = out_dir;
    opts.threads = threads;
    opts.resume = resume;
    opts.quiet = quiet;
    opts.origin = {profile, sets};
    opts.cache_dir = cache_dir;
    // Long tasks save their state this often into OUT/checkpoints (resume=True goes on from it);
    // SIGUSR1 and SIGTERM stay the interpreter's.
    if (!checkpoint_every.empty()) opts.checkpoint_every = parse_duration(checkpoint_every, "checkpoint_every");
    opts.on_progress = [&](std::size_t done, std::size_t total, double left) {
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {  // a KeyboardInterrupt is pending: raised below, after the run
        PyErr_Clear();
        interrupted = true;
        return false;
      }
      if (progress.is_none()) return true;
      try {
        progress(done, total, left);
      } catch (py::error_already_set& e) {
        if (e.matches(PyExc_KeyboardInterrupt)) interrupted = true;  // Ctrl-C while the callback ran
        else callback_error = std::make_unique<py::error_already_set>(std::move(e));
        return false;
      }
      return true;
    };
    try {
      outcome = run_sweep(sweep, opts);
    } catch (const RunStopped& e) {
      stopped = e.what();
    }
    if (stopped.empty()) {
      const auto results = read_results((std::filesystem::path(outcome.out_dir) / "results.jsonl").string());
      table = aggregate(expand_grid(sweep, world_registry()), results);
    }
  }
  if (callback_error) {  // the callback's own exception, as it was raised
    callback_error->restore();
    throw py::error_already_set();
  }
  if (!stopped.empty()) return py::dict("stopped"_a = stopped, "interrupted"_a = interrupted);
  py::list checks;
  for (const auto& c : outcome.checks) checks.append(to_py(c.to_json()));
  return py::dict("columns"_a = table_columns(table), "axes"_a = axes, "metrics"_a = table.metric_names,
                  "checks"_a = checks, "out_dir"_a = outcome.out_dir,
                  "tasks_total"_a = outcome.tasks_total, "tasks_run"_a = outcome.tasks_run,
                  "tasks_skipped"_a = outcome.tasks_skipped, "tasks_failed"_a = outcome.tasks_failed,
                  "first_failure"_a = outcome.first_failure, "tasks_reused"_a = outcome.tasks_reused,
                  "cache_refused"_a = outcome.cache_refused, "cache_dir"_a = outcome.cache_dir);
}

// Everything `run_sweep_py` would check before its first task, with no folder touched: the sweep
// (read from `path` when `text` is empty, through the bounded reader), its profile, the checkpoint
// interval, and check_sweep (name, grid, limits, each task's checks, memory and work). Returns the
// text it checked, as bytes, so that the caller can empty a folder holding that very file and
// still run it.
py::bytes check_sweep_py(const std::string& path, const std::string& text, const std::string& profile,
                         const std::vector<std::string>& sets, int threads, const std::string& checkpoint_every) {
  std::string checked;
  {
    py::gil_scoped_release nogil;
    checked = text.empty() ? read_file(path, kMaxSweepFileBytes, "sweep file") : text;
    const Sweep sweep = parse_sweep(checked, path, profile, sets, world_registry());
    require_known_profile(sweep, profile);
    if (!checkpoint_every.empty()) parse_duration(checkpoint_every, "checkpoint_every");
    check_sweep(sweep, world_registry(), threads);
  }
  return py::bytes(checked);
}

// The whole of a regular file as bytes, through the core's reader (what the command line reads
// files with): opened without blocking, a pipe, device or folder refused before any read, and a
// file over `max_bytes` refused by its size. InputError (ValueError) with the command line's
// sentence otherwise.
py::bytes read_file_py(const std::string& path, std::uint64_t max_bytes, const std::string& what) {
  std::string bytes;
  {
    py::gil_scoped_release nogil;
    bytes = read_file(path, max_bytes, what);
  }
  return py::bytes(bytes);
}

// Every complete line of a results.jsonl, as dicts (the partial last line of a killed run is dropped).
py::list read_results_file(const std::string& path) {
  std::vector<TaskResult> results;
  {
    py::gil_scoped_release nogil;
    results = read_results(path);
  }
  py::list out;
  for (const auto& t : results) out.append(to_py(task_to_json(t)));
  return out;
}

// The fitters take CSV text (columns_csv's, or a file's bytes from read_file) so that column choice,
// derived columns, dropped rows and error messages are exactly the command line's; `source` names
// the rows in messages ("data", or the file's path as the command line names it). `delimiter`:
// the request's for a file, "," for a DataFrame's text.

// The same request as `scalinglab fit` (fit::run_fit): the CLI and Python give the same numbers.
// The request is checked (fit_request_from_json, as the command line's options are) before the
// data are parsed (a path's bytes are read first, by read_file_py). `progress`: a callable
// (stage, done, total) or None (run_monitored).
py::object fit_request_py(const std::string& csv, const std::string& request, const std::string& source,
                          const py::object& progress) {
  const fit::FitRequest r = fit::fit_request_from_json(fit::parse_json(request, "fit: the request"));
  const json j = run_monitored<json>(progress, [&](const fit::FitMonitor& monitor) {
    const fit::DataTable table = fit::parse_table(csv, source, r.table_format());
    const fit::FitOutcome outcome = fit::run_fit(table, r, monitor);
    json out = fit::fit_outcome_saved(outcome);
    // What plot_fit draws: the figure's numbers, as the command line's --plot computes them.
    const fit::LawOutcome& main = outcome.laws.front();
    out["figure"] = fit::law_fit_figure(main.fit, outcome.train_columns, main.boot.get(), r.boot.level);
    return out;
  });
  return to_py(j);
}

// `source` names the saved fit in messages: "the saved fit" (a dict), or its path as the command line names it.
py::object predict_py(const std::string& saved, const std::map<std::string, std::vector<double>>& inputs, double level,
                      const std::string& source) {
  return to_py(fit::predict_saved(fit::parse_json(saved, "predict: " + source), inputs, level));
}

// The same request as `scalinglab frontier` (fit::run_frontier), with the figure's numbers.
py::object frontier_request_py(const std::string& csv, const std::string& request, const std::string& source,
                               const py::object& progress) {
  const fit::FrontierRequest r = fit::frontier_request_from_json(fit::parse_json(request, "frontier: the request"));
  const json j = run_monitored<json>(progress, [&](const fit::FitMonitor& monitor) {
    const fit::DataTable table = fit::parse_table(csv, source, r.table_format());
    const fit::FrontierOutcome outcome = fit::run_frontier(table, r, monitor);
    json out = outcome.json;
    out["figure"] = fit::frontier_figure(outcome);
    return out;
  });
  return to_py(j);
}

// A DataFrame's columns as CSV text, fast: numbers as their shortest round-trip text (the fit reads
// the user's doubles exactly), NaN as a blank (missing) cell, infinities as inf; text columns
// quoted as RFC 4180 wants. `columns`: per column a float64 array or a list of str (None: blank).
py::bytes columns_csv_py(const std::vector<std::string>& names, const py::list& columns) {
  if (names.size() != columns.size()) throw InputError("columns_csv: names and columns differ in number");
  const std::size_t k = names.size();
  std::vector<py::array_t<double, py::array::c_style | py::array::forcecast>> numeric(k);
  std::vector<std::vector<std::string>> text(k);
  std::vector<char> is_text(k, 0);
  std::size_t rows = 0;
  for (std::size_t c = 0; c < k; ++c) {
    const py::handle col = columns[c];
    if (py::isinstance<py::list>(col)) {
      is_text[c] = 1;
      for (const auto& v : col.cast<py::list>()) text[c].push_back(v.is_none() ? std::string() : v.cast<std::string>());
      rows = text[c].size();
    } else {
      numeric[c] = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(col);
      if (!numeric[c] || numeric[c].ndim() != 1) throw InputError("columns_csv: column '" + names[c] + "' is not 1-d");
      rows = static_cast<std::size_t>(numeric[c].shape(0));
    }
    if (c > 0) {
      const std::size_t first = is_text[0] ? text[0].size() : static_cast<std::size_t>(numeric[0].shape(0));
      if (rows != first) throw InputError("columns_csv: columns of different lengths");
    }
  }
  auto quoted = [](std::string& out, std::string_view v) {
    if (v.find_first_of(",\"\r\n") == std::string_view::npos) {
      out += v;
      return;
    }
    out += '"';
    for (const char ch : v) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    out += '"';
  };
  std::string out;
  {
    py::gil_scoped_release nogil;
    out.reserve(rows * k * 12 + 64);
    for (std::size_t c = 0; c < k; ++c) {
      if (c) out += ',';
      quoted(out, names[c]);
    }
    out += '\n';
    std::vector<const double*> data(k, nullptr);
    for (std::size_t c = 0; c < k; ++c)
      if (!is_text[c]) data[c] = numeric[c].data();
    char buffer[32];
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < k; ++c) {
        if (c) out += ',';
        if (is_text[c]) {
          quoted(out, text[c][r]);
          continue;
        }
        const double v = data[c][r];
        if (std::isnan(v)) continue;
        if (std::isinf(v)) {
          out += v > 0 ? "inf" : "-inf";
          continue;
        }
        const auto end = fmt::format_to_n(buffer, sizeof buffer, "{}", v);
        out.append(buffer, end.out);
      }
      out += '\n';
    }
  }
  return py::bytes(out);
}

// The extrapolation benchmark. `external` maps a method's name to a callable taking the small-budget
// table (a dict of lists N, D, C, budget, loss) and the target budgets, returning one dict per
// budget (N_opt, N_lo, N_hi, D_opt, L_opt, L_lo, L_hi; missing or None: not given) or None when it
// cannot predict. Called on this thread with the interpreter's lock held; the runs and the built-in
// fits run without it.
py::object extrapolate_py(const std::vector<std::string>& files, const std::string& out_dir, const std::string& profile,
                          const std::vector<std::string>& methods, int replications, int bootstrap, int threads,
                          bool resume, bool quiet, const std::string& predictions, const py::dict& external) {
  extrapolate::BenchmarkOptions o;
  o.out_dir = out_dir;
  o.profile = profile;
  o.methods = methods;
  o.replications = replications;
  o.bootstrap = bootstrap;
  o.threads = threads;
  o.resume = resume;
  o.quiet = quiet;
  o.predictions = predictions;
  if (threads < 0 || threads > 1024) throw InputError("threads: 0 (all cores) to 1024");
  if (replications < 0 || replications > 100000) throw InputError("replications: 1 to 100000 (0: the files')");
  for (const auto& [key, value] : external) {
    auto fn = std::make_shared<py::object>(py::reinterpret_borrow<py::object>(value));
    extrapolate::ExternalMethod m;
    m.name = py::str(key);
    m.predict = [fn, name = m.name](const fit::ProtocolTable& t, const std::vector<double>& budgets) {
      py::gil_scoped_acquire gil;
      py::dict table("N"_a = t.N, "D"_a = t.D, "C"_a = t.C, "budget"_a = t.budget, "loss"_a = t.loss);
      const py::object out = (*fn)(table, budgets);
      fit::MethodResult r;
      if (out.is_none()) {
        r.note = "the method gave no prediction";
        return r;
      }
      auto number = [](const py::dict& d, const char* key) {
        if (!d.contains(key) || d[key].is_none()) return std::numeric_limits<double>::quiet_NaN();
        return d[key].cast<double>();
      };
      if (!py::isinstance<py::list>(out))
        throw InputError("method '" + name + "' returned neither None nor a list of dicts (one per budget)");
      if (py::len(out) != budgets.size())
        throw InputError("method '" + name + "' gave " + std::to_string(py::len(out)) + " predictions for " +
                         std::to_string(budgets.size()) + " budgets");
      for (const auto& item : out.cast<py::list>()) {
        if (!py::isinstance<py::dict>(item)) throw InputError("method '" + name + "' returned a list item that is not a dict");
        const py::dict d = item.cast<py::dict>();
        fit::FrontierPrediction p;
        p.C = budgets[r.at.size()];
        p.N = {number(d, "N_opt"), number(d, "N_lo"), number(d, "N_hi")};
        p.L = {number(d, "L_opt"), number(d, "L_lo"), number(d, "L_hi")};
        p.D.value = number(d, "D_opt");
        if (!(p.D.value == p.D.value) && p.N.value > 0) p.D.value = p.C / (6 * p.N.value);
        if (p.N.has_interval() && p.N.lo > 0) p.D.lo = p.C / (6 * p.N.hi), p.D.hi = p.C / (6 * p.N.lo);
        r.at.push_back(p);
      }
      r.ok = r.at.size() == budgets.size();
      if (!r.ok)
        r.note = "method '" + name + "' gave " + std::to_string(r.at.size()) + " predictions for " +
                 std::to_string(budgets.size()) + " budgets";
      return r;
    };
    o.external.push_back(std::move(m));
  }
  json report;
  {
    py::gil_scoped_release nogil;
    report = extrapolate::run_benchmark(files, o);
  }
  return to_py(report);
}

// A formula (the lab's expression language: reference curves, checks' bounds) evaluated at n
// points: each variable holds one value (the same at every point) or n values.
std::vector<double> expression_values(const std::string& text, const std::map<std::string, std::vector<double>>& vars,
                                      std::size_t n) {
  const Expression expr(text);
  for (const auto& [name, values] : vars)
    if (values.size() != 1 && values.size() != n)
      throw InputError("expression '" + text + "': variable '" + name + "' has " + std::to_string(values.size()) +
                       " values, expected 1 or " + std::to_string(n));
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = expr.eval([&](const std::string& name) -> std::optional<double> {
      const auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second.size() == 1 ? it->second[0] : it->second[i];
    });
  return out;
}

}  // namespace
}  // namespace scalinglab

PYBIND11_MODULE(_scalinglab, mod) {
  using namespace scalinglab;
  mod.doc() = "scalinglab C++ core (use the `scalinglab` package, not this module)";
  mod.attr("__version__") = SCALINGLAB_VERSION;

  // InputError and std::invalid_argument (anything the user can fix) -> ValueError, as the command
  // line exits 2 on them; every other C++ exception -> RuntimeError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      set_python_error(PyExc_ValueError, e.what());
    } catch (const std::invalid_argument& e) {  // a world's own check of its arguments: exit 2 on the command line too
      set_python_error(PyExc_ValueError, e.what());
    } catch (const py::error_already_set&) {
      throw;
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::exception& e) {
      set_python_error(PyExc_RuntimeError, e.what());
    }
  });

  mod.def("measures", &measure_names, "Names of all registered measures.");
  // Worlds of the user's own (docs/worlds.md): the same loaders as --world and --plugin.
  mod.def("load_python_world", [](const std::string& file, const std::string& python, const std::string& package_root) {
    return external::load_python_world(file, {python, package_root});
  }, "file"_a, "python"_a = "", "package_root"_a = "", py::call_guard<py::gil_scoped_release>());
  mod.def("load_plugin", &external::load_plugin, "path"_a, py::call_guard<py::gil_scoped_release>());
  mod.def("loaded_worlds", [] {
    return std::make_pair(external::loaded_python_worlds(), external::loaded_plugins());
  });
  mod.def("describe", [](const std::string& name) { return to_py(describe_json(measure(name))); }, "name"_a);
  mod.def("describe_text", [](const std::string& name) { return describe_text(measure(name)); }, "name"_a);
  mod.def("describe_markdown", [] { return describe_markdown(world_registry()); });
  mod.def("evaluate", &evaluate_text, "measure"_a, "params"_a, "threads"_a = 0);
  mod.def("run_sweep", &run_sweep_py, "path"_a, "text"_a = "", "out_dir"_a = "", "threads"_a = 0, "resume"_a = false,
          "profile"_a = "", "sets"_a = std::vector<std::string>{}, "quiet"_a = true, "progress"_a = py::none(),
          "checkpoint_every"_a = "", "cache_dir"_a = "");
  mod.def("default_cache_dir", &default_cache_dir, "out_dir"_a);
  mod.def("lab_build_id", &lab_build_id);
  mod.def("cache_stats", [](const std::string& dir) {
    const CacheStats s = cache_stats(dir);
    return py::dict("entries"_a = s.entries, "bytes"_a = s.bytes, "this_build"_a = s.this_build,
                    "unreadable"_a = s.unreadable, "temporaries"_a = s.temporaries, "by_measure"_a = s.by_measure,
                    "by_build"_a = s.by_build, "oldest"_a = s.oldest, "newest"_a = s.newest);
  }, "dir"_a);
  mod.def("prune_cache", [](const std::string& dir, bool all, const std::string& older_than) {
    PruneOptions o;
    o.all = all;
    if (!older_than.empty()) o.older_than = parse_duration(older_than, "older_than");
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const PruneOutcome r = prune_cache(dir, o, now);
    return py::dict("removed"_a = r.removed, "bytes"_a = r.bytes, "kept"_a = r.kept);
  }, "dir"_a, "all"_a = false, "older_than"_a = "");
  mod.def("check_sweep", &check_sweep_py, "path"_a, "text"_a = "", "profile"_a = "",
          "sets"_a = std::vector<std::string>{}, "threads"_a = 0, "checkpoint_every"_a = "");
  mod.def("read_file", &read_file_py, "path"_a, "max_bytes"_a, "what"_a = "file");
  mod.attr("max_table_bytes") = kMaxTableBytes;
  mod.attr("max_sweep_file_bytes") = kMaxSweepFileBytes;
  mod.attr("max_saved_fit_bytes") = kMaxSavedFitBytes;
  mod.def("read_results", &read_results_file, "path"_a);
  mod.def("expression_values", &expression_values, "text"_a, "variables"_a, "n"_a);
  mod.def("expression_variables", [](const std::string& text) { return Expression(text).variables(); }, "text"_a);
  mod.def(
      "set_limits",
      [](double points, double tasks, double memory, double work) {
        if (!(points > 0) || !(tasks > 0) || !(memory >= 0) || !(work >= 0)) throw InputError("limits must be positive");
        set_limits(Limits{points, tasks, memory, work});
      },
      "max_points"_a, "max_tasks"_a, "max_memory"_a, "max_work"_a = 0.0);
  mod.def("get_limits", [] {
    const Limits l = limits();
    return py::dict("max_points"_a = l.max_points, "max_tasks"_a = l.max_tasks, "max_memory"_a = l.memory_bytes(),
                    "max_work"_a = l.max_work);
  });
  mod.def("fit_request", &fit_request_py, "csv"_a, "request"_a, "source"_a = "data", "progress"_a = py::none());
  mod.def("predict", &predict_py, "saved"_a, "inputs"_a, "level"_a, "source"_a = "the saved fit");
  mod.def("frontier_request", &frontier_request_py, "csv"_a, "request"_a, "source"_a = "data", "progress"_a = py::none());
  mod.def("columns_csv", &columns_csv_py, "names"_a, "columns"_a);
  mod.def("fit_option_keys", [] { return fit::fit_option_keys(); });
  mod.def("frontier_option_keys", [] { return fit::frontier_option_keys(); });
  mod.def("extrapolate_benchmark", &extrapolate_py, "files"_a, "out_dir"_a = "", "profile"_a = "",
          "methods"_a = std::vector<std::string>{}, "replications"_a = 0, "bootstrap"_a = -1, "threads"_a = 0,
          "resume"_a = false, "quiet"_a = true, "predictions"_a = "", "external"_a = py::dict());
}
