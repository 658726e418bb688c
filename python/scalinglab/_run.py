"""Running a sweep from Python: a sweep file, or a dict with a sweep file's keys (written as TOML
for the core, named after its content so that running it again finds its results), run by the core
with a progress display; the aggregated table and the checks come back."""

import os
import re
import warnings

from . import _folder, _sweep_toml
from . import _scalinglab as _core
from ._results import _table
from ._run_messages import _folder_terms, _run_terms
from ._run_progress import _Bar
from ._values import _as_given, _assignments, _duration


def sweep_toml(sweep):
    """The TOML text of a sweep given as a dict (the keys of a sweep file, docs/sweeps.md):
    top-level values first, then one [table] per dict ("params", "grid", "plot", "profile"),
    then one [[table]] per list of dicts ("check", "part")."""
    return _sweep_toml.toml_text(sweep)[0]


def run_sweep(sweep=None, /, out=None, threads=0, resume=False, profile="", set=None, quiet=True,  # noqa: A002
              progress=None, name=None, checkpoint_every=None, *, overwrite=False, columns="main", frame=True,
              cache=None, **fields):
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

    Task cache: a task any earlier run computed (the same measure, parameters, seed, run and build
    of the lab) is not run again: its record is copied from the cache, marked "reused" in
    results.jsonl. So a dict sweep given more runs or one more grid value runs only its new tasks.
    `cache=None` (default) uses `.cache` next to the results folder (results/.cache), a path names
    another folder, False uses none (every task runs). `scalinglab cache stats|prune` inspects and
    trims it (docs/sweeps.md).

    Progress: `progress=None` (or True) shows a tqdm bar when tqdm is installed, else a plain line on
    stderr (also in a notebook), and says so when every task was already done; False shows nothing;
    a callable is called as progress(done, total, seconds_left) after each task (seconds_left: NaN
    while unknown); `quiet=False` also prints the command line's progress on the process's stderr.
    Ctrl-C stops the run: no task starts any more, the running ones finish and are recorded, the
    progress bar is closed, and KeyboardInterrupt is raised; running the same call again (re-running
    the cell) finishes a dict sweep without a name, resume=True a named one. An exception raised by
    the callable stops the run the same way.

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
    if cache is None or cache is True:
        cache_dir = None  # next to the folder, once the folder is known
    elif cache is False:
        cache_dir = ""
    elif isinstance(cache, (str, os.PathLike)) and os.fspath(cache):
        cache_dir = os.fspath(cache)
    else:
        raise TypeError(f"run: cache={cache!r}: expected None (results/.cache), a folder's path, or False (no cache)")
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
    if cache_dir is None:
        cache_dir = _core.default_cache_dir(folder)
    every = "" if checkpoint_every is None else _duration(checkpoint_every)

    def refused(e):
        message = str(e) if spec is None else _sweep_toml.explain(str(e), path, spans, spec)
        if isinstance(set, dict):  # set={"d": [16, 32]} reached the core as d=16,32
            message = _as_given(message, set)
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
                              every, cache_dir)
    except BaseException as e:
        if bar is not None:
            bar.close(stopped=True)
        if isinstance(e, ValueError):
            raise refused(e) from None
        raise
    if bar is not None:
        bar.close(stopped="stopped" in res)
    if "stopped" in res:
        message = _run_terms(res["stopped"])
        if spec is not None and name is None:  # named by its content: the same call finds its folder again
            message = _again(message)
        if res["interrupted"]:
            raise KeyboardInterrupt(message)
        raise RuntimeError(message)
    if bar is not None and res["tasks_run"] == 0 and res["tasks_total"] > 0:
        bar.reused(res["tasks_total"], res["out_dir"], res.get("tasks_reused", 0), res.get("cache_dir", ""))
    if res.get("tasks_failed"):
        # The other tasks ran and are in the table: a warning, not an exception that would lose them.
        warnings.warn(f"{res['tasks_failed']} of {res['tasks_total']} tasks failed (the first: {res['first_failure']}); "
                      f"each is in {os.path.join(res['out_dir'], 'failures.jsonl')} with its traceback: fix the "
                      "measure and run again with resume=True", RuntimeWarning, stacklevel=2)
    return _table(res, columns, frame), list(res["checks"])


def _again(message):
    """The core's "run again with resume=True" for a dict sweep without a name, which resumes by
    itself: running the same call again (the same cell) is enough."""
    return re.sub(r"run again with resume=True to (finish|continue)",
                  "run the same call again (re-running the cell is enough) to finish: the tasks done are kept",
                  message)


def run(sweep=None, /, out=None, threads=0, resume=False, profile="", set=None, quiet=True,  # noqa: A002
        progress=None, name=None, checkpoint_every=None, *, overwrite=False, columns="main", frame=True,
        cache=None, **fields):
    """Runs a sweep (a file's path, a dict, or its keys as keywords) and returns the aggregated
    table: a pandas DataFrame of the swept parameters, the metrics' means and count (columns="all":
    every column of summary.csv), or a dict of numpy arrays without pandas (or with frame=False).
    An unnamed dict sweep gets a folder named after its content, so running it again reuses its
    results; overwrite=True deletes a folder's previous results first; tasks any earlier run
    computed come from the task cache (cache=None: results/.cache; False: none). See run_sweep for
    the options, the progress display, Ctrl-C, the cache, and for the checks."""
    return run_sweep(sweep, out, threads, resume, profile, set, quiet, progress, name, checkpoint_every,
                     overwrite=overwrite, columns=columns, frame=frame, cache=cache, **fields)[0]
