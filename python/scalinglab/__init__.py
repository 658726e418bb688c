"""scalinglab: a laboratory for neural scaling laws (Python interface).

Evaluate a measure at one point, run a sweep file, and get the results as numpy arrays or pandas
DataFrames. Every name and value is validated by the measure's declaration (the same one the
command line uses): a bad parameter raises ValueError naming it.

    >>> import scalinglab as sl
    >>> sl.measures()
    ['memory.error', ...]
    >>> print(sl.describe_text("memory.error"))            # parameters, defaults, ranges, metrics
    >>> sl.eval("memory.error", N=100, d=64, T=float("inf"), scheme="q0", runs=10, seed=1)
    {'measure': 'memory.error', 'params': {...}, 'metrics': {'error': {'mean': ..., ...}, ...}}
    >>> error = sl.eval("memory.error", N=100, d=64, runs=10)["metrics"]["error"]
    >>> error.mean, error.sem                   # also error["mean"]; float(error) is the mean
    >>> df = sl.run("experiments/cabannes2023/fig1-left.toml", out="/tmp/fig1", profile="quick")
    >>> df                                      # a DataFrame: the swept parameters, the metrics' means, count
    >>> sl.run(..., columns="all")              # every column of summary.csv (std, sem, fixed parameters)
    >>> fig = sl.plot("/tmp/fig1", x="d", y="error", series="T", log="xy")   # matplotlib, imported then

See docs/python.md for the full guide.
"""

import dataclasses
import math
import numbers
import json
import os

import numpy as np

from . import _folder, _sweep_toml
from . import _scalinglab as _core
from ._metric import Estimate, Exact, Metric
from ._fit_args import (_bounds_text, _call, _csv_input, _csv_text, _grid_list, _is_path,  # noqa: F401
                        _json_number, _python_terms, _scale, _where_list)

__version__ = _core.__version__

__all__ = [
    "measures", "describe", "describe_text", "measure", "eval", "Metric", "Exact", "Estimate", "run", "run_sweep",
    "sweep_toml", "to_pandas", "load_results", "fit", "predict", "frontier", "extrapolate", "Extrapolation", "limits",
    "set_limits", "plot",
]

_DTYPES = {"int": np.int64, "float": np.float64, "str": object, "bool": bool}


# ---- values: Python -> parameter text, JSON -> Python numbers --------------------------------

def _duration(value):
    """A duration keyword as the command line's text: 600 -> "600", "10m" stays (checked by the core)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, str, np.integer, np.floating)):
        raise ValueError(f"checkpoint_every: seconds or a duration such as \"10m\", not {value!r}")
    return value if isinstance(value, str) else repr(float(value))


def _text(value):
    """A keyword value as the text a user would type: True -> "true", inf -> "inf", 0.5 -> "0.5"."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, (list, tuple, np.ndarray)):  # a list parameter: "0.2,0.6,0.95"
        return ",".join(_text(v) for v in value)
    return str(value)


def _number(value):
    """A metric from JSON: null -> nan, "inf"/"-inf" -> float, numbers unchanged."""
    if value is None:
        return math.nan
    if value in ("inf", "-inf"):
        return float(value)
    return value


def _metric(value):
    if isinstance(value, dict):  # a stochastic measure's: {"mean", "std", "sem", "count"} over the runs
        return Estimate({k: _number(value[k]) for k in ("mean", "std", "sem", "count") if k in value})
    if isinstance(value, list):  # a series
        return [_number(v) for v in value]
    return Exact(_number(value))  # a deterministic measure's number


def _param(value):
    """A parameter from JSON: numbers unchanged, "inf"/"-inf" -> float, words unchanged."""
    return float(value) if value in ("inf", "-inf") else value


def _assignments(sets):
    if sets is None:
        return []
    if isinstance(sets, str):
        return [sets]
    if isinstance(sets, dict):
        return [f"{k}={_text(v)}" for k, v in sets.items()]
    return [str(s) for s in sets]


# ---- measures --------------------------------------------------------------------------------

def measures():
    """Names of all measures, e.g. ["memory.error", ...]."""
    return list(_core.measures())


def describe(name):
    """The declaration of measure `name` as a dict: name, summary, details, params, metrics.

    Each parameter is {"name", "type", "default", "doc", "expression"} plus "choices" for
    choices and "min"/"max" when the range is bounded."""
    return _core.describe(name)


def describe_text(name):
    """Help text of measure `name` (what `scalinglab describe NAME` prints)."""
    return _core.describe_text(name)


def measure(name):
    """Measure `name` as a Python function of its parameters, documented from its declaration.

        >>> error = scalinglab.measure("memory.error")
        >>> help(error)                      # parameters, ranges, metrics
        >>> error(N=100, d=64, runs=10)      # same as scalinglab.eval("memory.error", ...)
    """
    text = describe_text(name)  # raises ValueError for an unknown measure

    def f(*, threads=0, **params):
        return eval(name, threads=threads, **params)

    f.__name__ = f.__qualname__ = name.replace(".", "_")
    f.__doc__ = text + "\nKeyword `threads` sets the worker threads (0: all cores).\n"
    return f


def eval(measure, /, *, threads=0, **params):  # noqa: A001 (the CLI's verb)
    """Evaluates `measure` at one point; returns {"measure", "params", "metrics"}.

    Keywords are the measure's parameters (see describe_text(measure)), given as Python values
    (numbers, float("inf"), strings, booleans) or as the text of the command line ("d/8", "inf").
    `runs=R` averages R runs. A scalar metric of a stochastic measure is an Estimate, the dict
    {"mean", "std", "sem", "count"} whatever R is (std and sem 0 for one run); one of a deterministic
    measure (theory, describe(measure)["deterministic"]) is an Exact, a float. Both read alike:
    m.mean, m.std, m.sem, m.count, m["mean"], and float(m) is the mean (std, sem 0 and count 1 for
    an Exact). Series are lists (mean per index). `seed` keys the random streams, so a result is
    reproducible. `threads` is not a parameter: the number of worker threads (0: all cores).

    This is `scalinglab eval MEASURE k=v ... --json`, with inf as float("inf"), null as nan, and
    params and metrics in declaration order. Raises ValueError naming a bad parameter.
    """
    out = _core.evaluate(measure, {k: _text(v) for k, v in params.items()}, int(threads))
    decl = describe(measure)
    order = [p["name"] for p in decl["params"]]
    metric_order = [m["name"] for m in decl["metrics"]]
    got = out["metrics"]
    return {
        "measure": out["measure"],
        "params": {k: _param(out["params"][k]) for k in order if k in out["params"]},
        "metrics": {k: _metric(got[k]) for k in metric_order + sorted(set(got) - set(metric_order))
                    if k in got},
    }


# ---- sweeps ----------------------------------------------------------------------------------

def _select(columns, axes, metrics, which):
    """The names of the table's columns that `which` keeps, in the table's order for "all" and a
    list, else: the swept parameters, the metrics' means, and count unless every mean is of one run."""
    names = [name for name, _, _ in columns]
    if isinstance(which, str) and which == "all":
        return names
    if isinstance(which, str) and which == "main":
        count = next(values for name, _, values in columns if name == "count")
        return ([a for a in axes if a in names] + [m for m in metrics if m in names] +
                ([] if all(c == 1 for c in count) else ["count"]))
    if isinstance(which, (list, tuple)) and all(isinstance(c, str) for c in which):
        unknown = [c for c in which if c not in names]
        if unknown:
            raise ValueError(f"run: columns={list(which)!r}: no column {', '.join(map(repr, unknown))} "
                             f"(the table has {', '.join(names)})")
        return list(which)
    raise ValueError(f"run: columns={which!r}: expected \"main\", \"all\" or a list of column names")


def _table(res, which, frame):
    """The aggregated table of a run: a DataFrame (the columns `which` keeps) when pandas is there
    and frame is true, else a dict of numpy arrays."""
    columns = res["columns"]
    keep = _select(columns, res["axes"], res["metrics"], which)
    kinds = {name: (kind, values) for name, kind, values in columns}
    table = {name: np.asarray(kinds[name][1], dtype=_DTYPES[kinds[name][0]]) for name in keep}
    if not (frame and _has_pandas()):
        return table
    import pandas as pd

    df = pd.DataFrame(table, columns=keep)
    df.attrs.update(out=res["out_dir"], tasks_run=res["tasks_run"], tasks_skipped=res["tasks_skipped"])
    return df


def sweep_toml(sweep):
    """The TOML text of a sweep given as a dict (the keys of a sweep file, docs/sweeps.md):
    top-level values first, then one [table] per dict ("params", "grid", "plot", "profile"),
    then one [[table]] per list of dicts ("check", "part")."""
    return _sweep_toml.toml_text(sweep)[0]


# CLI options of `run` -> keywords of scalinglab.run, for its messages.
_RUN_KEYWORDS = {"--resume": "resume=True", "--out": "out=", "--set": "set=", "--profile": "profile=",
                 "--threads": "threads=", "--max-points": "set_limits(max_points=)",
                 "--max-tasks": "set_limits(max_tasks=)", "--max-memory": "set_limits(max_memory=)",
                 "--max-work": "set_limits(max_work=)"}


def _run_terms(message):
    import re

    return re.sub(r"--[a-z][a-z-]*", lambda m: _RUN_KEYWORDS.get(m.group(0), m.group(0)), message)


def _folder_terms(message):
    """The command line's advice about a folder already used, with overwrite=True added (Python has
    it, the command line does not)."""
    message = message.replace(
        "already holds results: pass --resume to continue that run, or choose another --out",
        "already holds results: pass resume=True to continue that run (the tasks done are kept), "
        "overwrite=True to delete them and run again, or choose another out=")
    if "holds the outputs of sweep" in message or "holds results of seed" in message:
        message = message.replace(": choose another --out", ": choose another out=, or pass overwrite=True to "
                                                            "delete those results")
    return message


class _Bar:
    """Progress in a notebook or a terminal: tqdm when installed, else one plain line on
    sys.stderr, redrawn in place (a carriage return) at most every half second."""

    def __init__(self, label):
        self.label, self.bar, self.last, self.open = label, None, 0.0, False
        try:
            from tqdm.auto import tqdm
            self.tqdm = tqdm
        except ImportError:
            self.tqdm = None

    def __call__(self, done, total, seconds_left):
        import sys
        import time

        if self.tqdm is not None:
            if self.bar is None:
                self.bar = self.tqdm(total=total, initial=done, desc=self.label, unit="task")
            self.bar.n = done
            self.bar.refresh()
            return
        now = time.monotonic()
        if now - self.last < 0.5 and done < total:
            return
        self.last = now
        eta = "?" if math.isnan(seconds_left) else f"{seconds_left:.0f}s"
        self.open = done < total
        print(f"\r{self.label}: {done}/{total} tasks, ETA {eta}   ", end="" if self.open else "\n",
              file=sys.stderr, flush=True)

    def reused(self, total, out):
        import sys

        print(f"{self.label}: all {total} tasks already done in {out}; nothing to run "
              f"(overwrite=True runs them again)", file=sys.stderr, flush=True)

    def close(self):
        import sys

        if self.bar is not None:
            self.bar.close()
        if self.open:  # a run stopped part way: the line ends where it was
            print(file=sys.stderr, flush=True)
            self.open = False


def run_sweep(sweep=None, /, out=None, threads=0, resume=False, profile="", set=None, quiet=True,  # noqa: A002
              progress=None, name=None, checkpoint_every=None, *, overwrite=False, columns="main", frame=True,
              **fields):
    """Runs a sweep; returns (table, checks).

    `sweep` is the path of a sweep file, or a dict with a sweep file's keys ({"measure": ...,
    "params": {...}, "grid": {...}, "runs": 10, "check": [{...}], ...}, docs/sweeps.md); the keys may
    also come as keywords: run_sweep(measure="memory.error", grid={"d": [64, 256]}, runs=5).

    Folders: results go to `out` (relative to the working directory) as results.jsonl, summary.csv,
    plot and checks.json, as with `scalinglab run`. A sweep file's default is results/<file stem>.
    A dict sweep given a `name` is results/<name>; one without is named after its content,
    sweep-<hash of its TOML text, profile and set> (results/sweep-3f9a0c12de), so running the same
    dict again reuses its results (the tasks done are not run again; unfinished ones are run), and a
    changed dict gets a folder of its own. Otherwise a folder that already holds results is an error
    unless `resume=True` (the tasks done are kept, the rest run) or `overwrite=True` (the folder's
    previous results are deleted first, once the whole sweep is read and checked; only a folder
    holding nothing but a run's outputs, never through a symbolic link). `profile` applies the sweep's [profile.NAME] overrides; `set`
    overrides fixed parameters, runs or seed, as a dict {"N": 200} or a list ["N=200"].
    `threads=0` uses all cores. Long tasks (factor.train) save their whole state into
    out/checkpoints every `checkpoint_every` (seconds, or "10m", "1.5h"; default 10 minutes; 0:
    never) and `resume=True` goes on from it, as the command line's --checkpoint-every.

    Progress: `progress=None` (or True) shows a tqdm bar when tqdm is installed, else a plain line on
    stderr (also in a notebook), and says so when every task was already done; False shows nothing;
    a callable is called as progress(done, total, seconds_left) after each task (seconds_left: NaN
    while unknown); `quiet=False` also prints the command line's progress on the process's stderr.
    Ctrl-C stops the run: no task starts any more, the running ones finish and are recorded, and
    KeyboardInterrupt is raised; run again (with resume=True for a named sweep) to finish. An
    exception raised by the callable stops the run the same way.

    table: one row per grid point in grid order. columns="main" (the default) keeps the swept
    parameters (`part` first for a sweep of parts), each scalar metric's mean, and count (runs
    present) unless every mean is of one run; columns="all" keeps every column of summary.csv in
    its order: every parameter (int64, float64 with inf, or object for choices), then for each
    scalar metric m: m (mean over runs), m_std, m_sem; then count (int64); a list of names keeps
    those. A pandas DataFrame (its attrs hold "out", the results folder, and "tasks_run",
    "tasks_skipped"); a dict of numpy arrays with frame=False or without pandas.
    checks: list of {"claim", "kind", "passed", "measured", "expected", "category", "margin",
    "margin_unit", ...}: margin is how far the verdict is from flipping, > 0 when the check passes by
    that much, in standard errors ("sem") for means over runs, else "decades", "slope", "abs" or
    "ratio" (docs/checks.md); "inf"/"-inf" as strings.
    """
    if sweep is None and not fields:
        raise TypeError("run: give a sweep file's path, a sweep dict, or the sweep's keys as keywords "
                        "(measure=..., grid=...)")
    if sweep is not None and fields:
        raise TypeError(f"run: give the sweep either as {type(sweep).__name__} or as keywords, not both "
                        f"(got keywords {', '.join(sorted(fields))})")
    if overwrite and resume:
        raise ValueError("run: resume=True keeps the results that overwrite=True deletes: give one of them")
    if not (columns in ("main", "all") if isinstance(columns, str) else
            isinstance(columns, (list, tuple)) and all(isinstance(c, str) for c in columns)):
        raise ValueError(f"run: columns={columns!r}: expected \"main\", \"all\" or a list of column names")
    profile = profile or ""
    sets = _assignments(set)
    spec = spans = None
    if sweep is None or isinstance(sweep, dict):
        spec = fields if sweep is None else sweep
        text, spans = _sweep_toml.toml_text(spec)
        if name is None:  # named by its content: the same dict finds its results again
            label = "sweep-" + _sweep_toml.digest(text, profile, sets)
            resume = True
        else:
            label = name
            if not isinstance(label, str) or not label.replace("-", "").replace("_", "").replace(".", "").isalnum():
                raise ValueError(f"run: name={label!r} must be a plain name (letters, digits, - _ .)")
        path = f"{label}.toml"
    else:
        text, path, label = "", os.fspath(sweep), os.path.splitext(os.path.basename(os.fspath(sweep)))[0]
    folder = os.path.join("results", label) if out is None else os.fspath(out)
    every = "" if checkpoint_every is None else _duration(checkpoint_every)

    def refused(e):
        message = str(e) if spec is None else _sweep_toml.explain(str(e), path, spans, spec)
        return ValueError(_run_terms(_folder_terms(message)))

    if overwrite:
        # The whole sweep is read (once, into memory) and checked before anything is deleted: a
        # misspelt measure, a missing file or a sweep past the limits leaves the records where they
        # are, and a folder's own sweep.toml still runs from its text once the folder is emptied.
        try:
            text = _core.check_sweep(path, text, profile, sets, int(threads), every)
        except ValueError as e:
            raise refused(e) from None
        _folder.clear(folder)
    bar = None
    if callable(progress):
        callback = progress
    elif progress is False:
        callback = None
    else:
        bar = _Bar(label)
        callback = bar
    try:
        res = _core.run_sweep(path, text, folder, int(threads), bool(resume), profile, sets, bool(quiet), callback,
                              every)
    except ValueError as e:
        raise refused(e) from None
    finally:
        if bar is not None:
            bar.close()
    if "stopped" in res:
        message = _run_terms(res["stopped"])
        if res["interrupted"]:
            raise KeyboardInterrupt(message)
        raise RuntimeError(message)
    if bar is not None and res["tasks_run"] == 0 and res["tasks_total"] > 0:
        bar.reused(res["tasks_total"], res["out_dir"])
    return _table(res, columns, frame), list(res["checks"])


def run(sweep=None, /, out=None, threads=0, resume=False, profile="", set=None, quiet=True,  # noqa: A002
        progress=None, name=None, checkpoint_every=None, *, overwrite=False, columns="main", frame=True,
        **fields):
    """Runs a sweep (a file's path, a dict, or its keys as keywords) and returns the aggregated
    table: a pandas DataFrame of the swept parameters, the metrics' means and count (columns="all":
    every column of summary.csv), or a dict of numpy arrays without pandas (or with frame=False).
    An unnamed dict sweep gets a folder named after its content, so running it again reuses its
    results; overwrite=True deletes a folder's previous results first. See run_sweep for the
    options, the progress display, Ctrl-C, and for the checks."""
    return run_sweep(sweep, out, threads, resume, profile, set, quiet, progress, name, checkpoint_every,
                     overwrite=overwrite, columns=columns, frame=frame, **fields)[0]


def limits():
    """The limits checked before any work starts: {"max_points", "max_tasks", "max_memory"} (grid
    points of a sweep, tasks of a sweep or runs of an eval, bytes the runs going at once may
    allocate by the measures' estimates). See docs/reliability.md."""
    return dict(_core.get_limits())


def set_limits(max_points=None, max_tasks=None, max_memory=None, max_work=None):
    """Raises (or lowers) the limits for this process; None keeps a limit as it is. A run past a
    limit raises ValueError at once, before anything is computed. `max_work`: elementary operations
    one run may take, by the measures' estimates (0: no limit, the default)."""
    cur = limits()
    _core.set_limits(float(cur["max_points"] if max_points is None else max_points),
                     float(cur["max_tasks"] if max_tasks is None else max_tasks),
                     float(cur["max_memory"] if max_memory is None else max_memory),
                     float(cur.get("max_work", 0) if max_work is None else max_work))


def to_pandas(table):
    """The table of run() as a pandas DataFrame with its columns in order: a DataFrame is returned as
    it is, a dict of numpy arrays (frame=False, or a run without pandas) becomes one."""
    import pandas as pd

    return table if isinstance(table, pd.DataFrame) else pd.DataFrame(table, columns=list(table))


def _declared(values, order):
    """The keys of `values` in the declared `order`, then any others in their own order."""
    return [k for k in order if k in values] + [k for k in values if k not in order]


def load_results(path, frame=False):
    """Every task of a results directory (or of its results.jsonl file), as a list of dicts
    {"point", "key", "run", "params", "metrics", "series", "seconds"}; a partial last line left
    by a killed run is dropped. Parameters and metrics come in the order the measure declares
    them (`describe`), as in `run`'s table. With frame=True: a DataFrame with one row per task and
    columns point, run, key, the parameters, the scalar metrics, the series (lists), seconds."""
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, "results.jsonl")
    tasks = []
    orders = {}  # measure -> (parameter order, metric order), as `describe` declares them
    for t in _core.read_results(path):
        words = t["key"].split()
        name = words[1] if words and words[0].startswith("part=") and len(words) > 1 else (words or [""])[0]
        if name not in orders:
            try:
                d = describe(name)
                orders[name] = ([p["name"] for p in d["params"]], [m["name"] for m in d["metrics"]])
            except ValueError:  # a measure this build does not know: the file's order
                orders[name] = ([], [])
        params, metrics = orders[name]
        t["params"] = {k: _param(t["params"][k]) for k in _declared(t["params"], ["part"] + params)}
        t["metrics"] = {k: _number(t["metrics"][k]) for k in _declared(t["metrics"], metrics)}
        series = t.get("series", {})
        t["series"] = {k: [_number(x) for x in series[k]] for k in _declared(series, metrics)}
        tasks.append(t)
    if not frame:
        return tasks
    import pandas as pd

    rows = [{"point": t["point"], "run": t["run"], "key": t["key"], **t["params"], **t["metrics"],
             **t["series"], "seconds": t["seconds"]} for t in tasks]
    return pd.DataFrame(rows)


# ---- scaling-law fits: fit, frontier, predict (_fitters.py; arguments: _fit_args.py) ----------
from ._fitters import fit, frontier, predict  # noqa: E402


# ---- the extrapolation benchmark ------------------------------------------------------------

# What a custom method may return per budget, in the order the core reads them.
_PREDICTION_KEYS = ("N_opt", "N_lo", "N_hi", "D_opt", "L_opt", "L_lo", "L_hi")
_TABLE_COLUMNS = ("N", "D", "C", "budget", "loss")


@dataclasses.dataclass
class Extrapolation:
    """What extrapolate() returns.

    report: the leaderboard as a dict (keys worlds, rows, methods, seconds, out_dir, profile), as
    OUT/leaderboard.json. out: the results folder. With frame=True and pandas installed, the CSV
    files of that folder as DataFrames (None otherwise): leaderboard (one row per world, design,
    method and horizon), predictions (one row per replication too), truth (the hidden optimum at
    each target budget) and tables (every small-budget run the methods saw)."""

    report: dict
    out: str
    leaderboard: object = None
    predictions: object = None
    truth: object = None
    tables: object = None

    def __repr__(self):
        rows = len(self.report.get("rows", []))
        return (f"Extrapolation(out={self.out!r}, methods={list(self.report.get('methods', []))!r}, "
                f"{rows} leaderboard rows)")


def _whole(value, name, low, high, default=""):
    """A whole number in [low, high] for keyword `name`, or ValueError saying so."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise ValueError(f"extrapolate: {name}={value!r} must be a whole number from {low} to {high}{default}")
    return int(value)


def _custom_column(name, key, value, count):
    """One returned column of custom method `name` as `count` floats (nan: not given)."""
    try:
        column = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"extrapolate: custom method {name!r} returned {key} that is not numbers "
                         f"({type(value).__name__})") from None
    if column.ndim == 0 and count == 1:
        column = column.reshape(1)
    if column.shape != (count,):
        raise ValueError(f"extrapolate: custom method {name!r} returned {key} of shape {column.shape} "
                         f"for {count} budgets (give one value per budget)")
    return column


def _custom_predictions(name, out, count):
    """A custom method's return value in the core's terms: None, or one dict per budget."""
    if out is None:
        return None
    if isinstance(out, tuple):
        if len(out) != 2:
            raise ValueError(f"extrapolate: custom method {name!r} returned a tuple of {len(out)} items "
                             f"(give (N_opt, L_opt), a dict or None)")
        out = {"N_opt": out[0], "L_opt": out[1]}
    elif not isinstance(out, dict):
        raise ValueError(f"extrapolate: custom method {name!r} returned {type(out).__name__} "
                         f"(give a dict with N_opt, a tuple (N_opt, L_opt) or None)")
    unknown = [str(k) for k in out if k not in _PREDICTION_KEYS]
    if unknown:
        raise ValueError(f"extrapolate: custom method {name!r} returned unknown key(s) {', '.join(unknown)} "
                         f"(known: {', '.join(_PREDICTION_KEYS)})")
    if out.get("N_opt") is None:
        raise ValueError(f"extrapolate: custom method {name!r} returned no N_opt (give None to make no prediction)")
    columns = {k: _custom_column(name, k, v, count) for k, v in out.items() if v is not None}
    for key in ("N_opt", "N_lo", "N_hi", "D_opt"):
        if key in columns and np.any(columns[key] <= 0):
            raise ValueError(f"extrapolate: custom method {name!r} returned {key} <= 0 "
                             f"(a size is positive; nan: no prediction at that budget)")
    return [{k: (None if math.isnan(c[i]) else float(c[i])) for k, c in columns.items()} for i in range(count)]


def _custom_method(name, fn, frame, raised):
    """`fn(table, budgets)` as the core calls it: lists in, one dict per budget out. An exception on
    the way is appended to `raised` (so that the caller re-raises it untouched) and goes on."""
    def predict(table, budgets):
        try:
            columns = {k: np.asarray(table[k], dtype=float) for k in _TABLE_COLUMNS}
            if frame:
                import pandas as pd
                columns = pd.DataFrame(columns)
            budgets = np.asarray(budgets, dtype=float)
            return _custom_predictions(name, fn(columns, budgets.copy()), len(budgets))
        except BaseException as e:
            raised.append(e)
            raise
    return predict


def _has_pandas():
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def extrapolate(worlds, *, methods=None, profile="", out=None, replications=None, bootstrap=None, threads=0,
                resume=False, quiet=True, custom=None, frame=True):
    """Which scaling-law fit can be trusted far beyond its data? Runs the extrapolation benchmark,
    as `scalinglab extrapolate --benchmark WORLD.toml ...`, and returns an Extrapolation.

    Each world file (experiments/extrapolate/: teacher-bound.toml, memory-error.toml, ...) names a
    measure with a hidden truth. Each small-budget IsoFLOP design of a world is run `replications`
    times with fresh seeds; every method fits each replication's runs and predicts the compute-optimal
    N_opt, D_opt and loss L_opt at target budgets 10 to 1000 times beyond, scored against the truth
    (error, interval coverage, regret of the loss at the predicted N_opt).

    worlds: a path or a list of paths. methods: method names as on the command line ("approach2",
    "approach3:delta=inf", "porian", "law:E + A/N^a + B/D^b", ...; None: the defaults). profile:
    each file's [profile.NAME] overrides ("quick"). out: the results folder (default
    results/extrapolation-benchmark; an existing one needs resume=True, which keeps the runs already
    done). replications, bootstrap: override the files' (bootstrap 0: no intervals, else 20 or more).
    threads: 0 uses all cores. quiet=False prints progress on stderr.

    custom: {name: fn} methods written in Python, scored with the built-in ones. fn(table, budgets)
    gets one replication's small runs (a DataFrame with columns N, D, C, budget, loss; a dict of
    numpy arrays when frame=False or pandas is missing) and the target budgets (numpy array), and
    returns None (no prediction), a tuple (N_opt, L_opt), or a dict of arrays with one value per
    budget: "N_opt" (required), optionally "N_lo", "N_hi", "L_opt", "L_lo", "L_hi", "D_opt"
    (default C / (6 N_opt)); nan or None: not given. Anything else raises ValueError naming the
    method; an exception raised by fn stops the benchmark and propagates.

        >>> def best_run(table, budgets):      # N_opt ~ C^a through each budget's lowest-loss run
        ...     best = table.loc[table.groupby("budget")["loss"].idxmin()]
        ...     a, b = np.polyfit(np.log(best["C"]), np.log(best["N"]), 1)
        ...     return {"N_opt": np.exp(b) * budgets ** a}
        >>> res = sl.extrapolate("experiments/extrapolate/teacher-bound.toml", profile="quick",
        ...                      methods=["approach2", "approach3"], custom={"best-run": best_run},
        ...                      out="results/bench")
        >>> res.leaderboard[["method", "horizon", "N_err_median", "N_coverage"]]

    Returns Extrapolation(report, out, leaderboard, predictions, truth, tables): the report dict
    (OUT/leaderboard.json) and, with frame=True and pandas installed, OUT's leaderboard.csv,
    predictions.csv, truth.csv and tables.csv as DataFrames. Bad arguments raise ValueError."""
    if isinstance(worlds, (str, os.PathLike)):
        worlds = [worlds]
    try:
        files = [os.fspath(w) for w in worlds]
    except TypeError:
        raise ValueError(f"extrapolate: worlds must be a path or a list of paths of world files, "
                         f"not {type(worlds).__name__}") from None
    if not files:
        raise ValueError("extrapolate: name at least one world file (experiments/extrapolate/)")
    if methods is None:
        methods = []
    else:
        methods = [methods] if isinstance(methods, str) else [str(m) for m in methods]
        if not methods:
            raise ValueError("extrapolate: methods=[] names no method (None: the defaults)")
    if profile is None:
        profile = ""
    if not isinstance(profile, str):
        raise ValueError(f"extrapolate: profile={profile!r} must be a profile's name")
    reps = 0 if replications is None else _whole(replications, "replications", 1, 100000, " (None: the files')")
    boot = -1 if bootstrap is None else _whole(bootstrap, "bootstrap", 0, 100000, " (None: the files')")
    threads = _whole(threads, "threads", 0, 1024, " (0: all cores)")
    frames = bool(frame) and _has_pandas()
    external, raised = {}, []
    for name, fn in (custom or {}).items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"extrapolate: a custom method's name must be a non-empty string, not {name!r}")
        if not callable(fn):
            raise ValueError(f"extrapolate: custom method {name!r} is {type(fn).__name__}, not a callable "
                             f"fn(table, budgets)")
        external[name] = _custom_method(name, fn, frames, raised)
    try:
        report = _core.extrapolate_benchmark(files, "" if out is None else os.fspath(out), profile, methods, reps,
                                             boot, threads, bool(resume), bool(quiet), "", external)
    except ValueError as e:
        if any(e is r for r in raised):  # from a custom method (its own, or its malformed return): as it was
            raise
        raise ValueError(_run_terms(str(e))) from None  # the core's: keywords instead of command-line options
    folder = report.get("out_dir") or ("results/extrapolation-benchmark" if out is None else os.fspath(out))
    result = Extrapolation(report=report, out=folder)
    if frames:
        import pandas as pd

        def read(name):
            return pd.read_csv(os.path.join(folder, name), float_precision="round_trip")
        result.leaderboard = read("leaderboard.csv")
        result.predictions = read("predictions.csv")
        result.truth = read("truth.csv")
        result.tables = read("tables.csv")
    return result


# The plot helper (matplotlib is imported when it draws, not here). Imported last: the function
# scalinglab.plot, not its module, is what the package exports under that name.
from .plot import plot  # noqa: E402
from .worlds import include_dir, load_plugin, load_world, param, register_measure  # noqa: E402,F401
from .plot_fit import plot_fit  # noqa: E402

__all__ += ["plot_fit", "register_measure", "param", "load_world", "load_plugin", "include_dir"]
