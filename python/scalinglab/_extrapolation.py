"""The extrapolation benchmark from Python: which scaling-law fit can be trusted far beyond its
data (`scalinglab extrapolate --benchmark`), its leaderboard and tables as an Extrapolation."""

import dataclasses
import numbers
import os

import numpy as np

from . import _extrapolation_folder
from . import _scalinglab as _core
from ._custom_methods import _custom_method
from ._run_messages import _run_terms


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


def extrapolate(worlds, *, methods=None, profile="", out=None, replications=None, bootstrap=None, threads=0,
                resume=False, overwrite=False, quiet=True, custom=None, frame=True):
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
    results/extrapolation-benchmark). A folder that already holds a benchmark's results is an error
    unless resume=True (the runs done are kept, the methods fitted again) or overwrite=True (its
    previous results are deleted first: only a folder holding nothing but what a benchmark writes,
    its tables, figures and run folders, never through a symbolic link). replications, bootstrap:
    override the files' (bootstrap 0: no intervals, else 20 or more).
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
    if overwrite and resume:
        raise ValueError("extrapolate: resume=True keeps the results that overwrite=True deletes: give one of them")
    folder = "results/extrapolation-benchmark" if out is None else os.fspath(out)
    from . import _has_pandas  # the package's, looked up at each call, as run's table does

    frames = bool(frame) and _has_pandas()
    external, raised = {}, []
    for name, fn in (custom or {}).items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"extrapolate: a custom method's name must be a non-empty string, not {name!r}")
        if not callable(fn):
            raise ValueError(f"extrapolate: custom method {name!r} is {type(fn).__name__}, not a callable "
                             f"fn(table, budgets)")
        external[name] = _custom_method(name, fn, frames, raised)
    used = (f"extrapolate: {folder} already holds an extrapolation benchmark's results: pass resume=True to "
            "continue it (the runs done are kept), overwrite=True to delete them and run again, or choose another out=")
    if overwrite:
        missing = [f for f in files if not os.path.isfile(f)]  # (a misspelt world deletes nothing)
        if missing:
            raise ValueError(f"extrapolate: no world file {missing[0]}; nothing was deleted")
        _extrapolation_folder.clear(folder)
    elif not resume and _extrapolation_folder.holds_results(folder):
        raise ValueError(used)
    try:
        report = _core.extrapolate_benchmark(files, "" if out is None else os.fspath(out), profile, methods, reps,
                                             boot, threads, bool(resume), bool(quiet), "", external)
    except ValueError as e:
        if any(e is r for r in raised):  # from a custom method (its own, or its malformed return): as it was
            raise
        if not resume and "already holds results" in str(e):  # a run folder inside: the user's folder is meant
            raise ValueError(used) from None
        raise ValueError(_run_terms(str(e))) from None  # the core's: keywords instead of command-line options
    folder = report.get("out_dir") or folder
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
