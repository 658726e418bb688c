"""Scaling-law fits and frontiers from Python: `fit`, `frontier`, `predict`. Each builds the same
request as its command (`scalinglab fit`, `scalinglab frontier`, `scalinglab predict`), so the numbers
are the command line's; the keywords are the commands' long options with '-' as '_', and the options
the two fitters share are read by one function (`_shared_request`) from one list, as on the command
line (the core's fitter_option_keys)."""

import json
import os
import warnings

from . import _scalinglab as _core
from ._fit_args import (_bounds_text, _call, _csv_input, _grid_list, _is_path, _json_number, _python_terms, _scale,
                        _where_list)
from ._fit_progress import _progress_callable


def _shared_request(data, N, D, C, loss, where, drop_top, flops, weight, best_of, aggregate, drop_missing, N_scale,
                    D_scale, C_scale, sep, decimal, format, bootstrap, level, seed, at, threads):  # noqa: A002
    """The options fit and frontier share, as the request's keys (the core's fitter_option_keys)."""
    return {"N": N, "D": D, "C": C, "loss": loss, "where": _where_list(where), "drop_top": int(drop_top),
            "flops": flops, "weight": weight, "best_of": best_of, "aggregate": aggregate or "",
            "drop_missing": bool(drop_missing), "N_scale": _scale(N_scale), "D_scale": _scale(D_scale),
            "C_scale": _scale(C_scale),
            # A DataFrame reaches the core as CSV text with '.' decimals, whatever the file it came from.
            "sep": sep if _is_path(data) else ",", "decimal": decimal if _is_path(data) else ".",
            "format": format if _is_path(data) else "csv",
            "bootstrap": int(bootstrap), "level": _json_number(level), "seed": int(seed),
            "at": [_json_number(c) for c in at], "threads": int(threads)}


def _run(data, function, request, progress):
    csv, source = _csv_input(data)
    callback = _progress_callable(progress)
    try:
        result = _call(data, function, csv, json.dumps(request), source, callback)
    finally:
        if hasattr(callback, "close"):
            callback.close()
    if isinstance(result.get("warnings"), list):  # in Python's terms; the command line prints them on stderr
        result["warnings"] = [_python_terms(w, data) for w in result["warnings"]]
        for w in result["warnings"]:
            warnings.warn(w, UserWarning, stacklevel=3)
    return result


def fit(data, law="chinchilla", *, x=None, N=None, D=None, C=None, loss="loss", where=None, drop_top=0, flops=None,
        weight=None, best_of=None, aggregate=None, drop_missing=False, N_scale=1, D_scale=1, C_scale=1, sep=",",
        decimal=".", format="auto", bootstrap=200, level=0.95, seed=1, at=(), threads=0,  # noqa: A002
        x_min=None, holdout=None, cv=None, compare=(), input_column=(), bounds=None, grid=None, delta=None,
        objective="huber", bootstrap_starts=32, polish=64, progress=True):
    """Fits a scaling law to `data` (a DataFrame, a dict of columns or a CSV path), exactly as
    `scalinglab fit` does (same request, same numbers).

    law: a name ("power", "saturating" (x); "chinchilla", "kaplan", "muennighoff", "muennighoff-full" (two of
    N, D, C);
    "porian" (C); "bnsl" (x)) or an expression such as "E + A/N^alpha + B/D^beta": N, D, C, x (the
    columns given as N=, D=, C=, x=) and the columns named in input_column (["N_no_emb"] for
    "E + A/N_no_emb^alpha + B/D^beta") are inputs, every other name a parameter, also one that is a
    column's name too (warned about); a law that reads none of those is written in the column
    names, which are then its inputs ("E + A*params^-a").
    where: a condition "C >= 1e19", a list of them, or {column: value} equalities; x_min keeps rows
    with x (two-input laws: N) >= x_min. flops: C as a formula ("6*N*D"); weight, best_of: column
    names. holdout: a condition selecting rows held out and scored; cv="leave-one-budget-out";
    compare: further laws fitted on the same rows. bounds: {"alpha": (0, 2), "E": (0, None)} or
    "alpha=0:2,E=0:" (a parameter bounded (0, None) is fitted as its logarithm); grid: {"alpha":
    [0.2, 0.5]} or ["log(A)=0:5:25"]; delta: Huber threshold (None: the law's default, least
    squares in log space except chinchilla and kaplan); polish: large grids are screened with a loose
    tolerance and only this many best-ending starts continued to the full one (0: all).
    drop_missing: leave out rows with a missing value (NaN, None, a blank cell) in a column the fit
    reads (counted per column in "missing_by_column"); otherwise such a value is an error.
    aggregate: "mean" or "min" merges rows with identical inputs (repeated seeds). N_scale, D_scale,
    C_scale: multiply a column (1e6 or "M" for millions; "k", "M", "B", "G", "T"). sep, decimal: the
    field and decimal separators of a CSV path (sep=";", decimal="," for a European spreadsheet's);
    format: "auto" (by the path's name: .json a JSON table such as a W&B export, .jsonl JSON lines),
    "csv", "json" or "jsonl". drop_missing also leaves out infinite values and repeated header lines.
    weight: a column or an expression of columns ("sqrt(C)"). objective: "huber" (the summed loss, as
    Hoffmann et al.) or "mle" (maximum likelihood with a fitted noise scale, reported as
    "noise_sd", as Besiroglu et al. 2024). progress: True (a bar, tqdm when installed, for fits
    longer than a few seconds), False, or a callable (stage, done, total); Ctrl-C stops the fit
    (KeyboardInterrupt, nothing returned). Warnings about the data are also issued as UserWarning.

    Returns a dict: every parameter with its bootstrap standard error (NAME_se) and percentile
    interval (NAME_lo, NAME_hi), residuals, warnings, held-out and cross-validation errors, the
    compared laws, and "saved" (what predict() needs)."""
    request = _shared_request(data, N, D, C, loss, where, drop_top, flops, weight, best_of, aggregate, drop_missing,
                              N_scale, D_scale, C_scale, sep, decimal, format, bootstrap, level, seed, at, threads)
    request.update({"law": law, "compare": list(compare),
                    "input_column": [input_column] if isinstance(input_column, str) else list(input_column),
                    "x": x, "holdout": holdout, "cv": cv,
                    "bounds": _bounds_text(bounds), "grid": _grid_list(grid),
                    "delta": None if delta is None else _json_number(delta),
                    "bootstrap_starts": int(bootstrap_starts), "x_min": None if x_min is None else _json_number(x_min),
                    "polish": int(polish), "objective": objective})
    return _run(data, _core.fit_request, request, progress)


def frontier(data, method="isoflop", *, N=None, D=None, C=None, loss="loss", where=None, drop_top=0, flops=None,
             weight=None, best_of=None, aggregate=None, drop_missing=False, N_scale=1, D_scale=1, C_scale=1,
             sep=",", decimal=".", format="auto", bootstrap=1000, level=0.95, seed=1, at=(),  # noqa: A002
             threads=0, group_tolerance=0.1, budget=None, trim=0.0, skip_bad_slices=False, log_loss=False, run=None,
             progress=True):
    """The compute-optimal frontier N_opt ~ C^a, D_opt ~ C^b with bootstrap intervals, exactly as
    `scalinglab frontier` (same request, same numbers), by `method`:
    "isoflop" (Approach 2: a parabola per IsoFLOP slice), "parametric" (Approach 3: the Chinchilla
    law fitted, frontier in closed form), "both" (the two and their comparison: "approach2",
    "approach3", "comparison"), or "approach1" (the envelope of learning curves: rows are
    checkpoints, run= names the column of run ids, D the tokens seen so far; intervals from
    resampling whole runs).
    The shared keywords are fit()'s (where, flops, weight, best_of, aggregate, drop_missing, the
    unit scales, sep, decimal, format, bootstrap, level, seed, at, threads, progress). trim: keep in each
    slice the runs within this fraction of its lowest loss (0.05 or "5%"); budget: a column grouping
    runs into slices (instead of group_tolerance); skip_bad_slices: leave out slices without an
    interior minimum; log_loss=True: fit each slice's parabola to log loss against log N (its
    minimum, exp of the vertex, is always positive), for losses spanning decades such as error
    rates; a slice whose parabola's minimum is not positive or far below its losses is warned
    about. Returns a dict (the frontier at each budget of `at` with its intervals: N_opt,
    N_opt_lo, N_opt_hi, ...; "warnings"; "figure", what plot_fit draws)."""
    request = _shared_request(data, N, D, C, loss, where, drop_top, flops, weight, best_of, aggregate, drop_missing,
                              N_scale, D_scale, C_scale, sep, decimal, format, bootstrap, level, seed, at, threads)
    request.update({"method": method, "group_tolerance": _json_number(group_tolerance), "budget": budget or "",
                    "trim": trim if isinstance(trim, str) else _json_number(trim),
                    "skip_bad_slices": bool(skip_bad_slices), "log_loss": bool(log_loss), "run": run or ""})
    return _run(data, _core.frontier_request, request, progress)


def predict(fit_result, level=0.95, **inputs):
    """Predicted loss of a fit (the dict fit() returns, or a file written by `scalinglab fit --save`)
    at inputs given as keywords (N=7e10, D=1.4e12; lists are zipped), with two intervals at `level`:
    loss_lo, loss_hi, the bootstrap's percentile interval of the law's curve (its parameters'
    uncertainty only: where the mean loss lies), and loss_pi_lo, loss_pi_hi, the prediction
    interval of a new run's loss (that plus the fit's residual scatter, docs/fit.md). Returns a
    list of dicts (inputs, loss, loss_lo, loss_hi, loss_se, loss_pi_lo, loss_pi_hi)."""
    if _is_path(fit_result):  # read as `scalinglab predict` reads it
        source = os.fspath(fit_result)
        text = _call(source, _core.read_file, source, _core.max_saved_fit_bytes, "saved fit")
    else:  # the figure's numbers are not needed to predict
        source = "the saved fit"
        text = json.dumps({k: v for k, v in fit_result.items() if k != "figure"} if isinstance(fit_result, dict)
                          else fit_result)
    values = {k: [float(x) for x in (v if hasattr(v, "__len__") else [v])] for k, v in inputs.items()}
    try:
        return _core.predict(text, values, float(level), source)["predictions"]
    except ValueError as e:
        raise ValueError(_python_terms(str(e), "")) from None
