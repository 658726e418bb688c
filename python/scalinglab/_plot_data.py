"""The data of a figure of plot(): a table given in Python (a dict of arrays, a DataFrame), or a
results folder read from disk (its summary.csv, and its sweep.toml for the [plot] defaults). A
folder may come from anyone, so every file goes through the core's bounded reader."""

import csv
import io
import math
import os
import warnings

import numpy as np

from . import _scalinglab as _core


def _column(cells):
    """A column of CSV cells: float64 when every non-empty cell is a number ('inf' and 'nan'
    included; empty cells become NaN), else an object array of strings."""
    values = []
    for c in cells:
        if c == "":
            values.append(math.nan)
            continue
        try:
            values.append(float(c))
        except ValueError:
            return np.asarray(cells, dtype=object)
    return np.asarray(values, dtype=np.float64)


def _read_text(path, limit, what):
    """A file of a results directory (which may come from anyone) as text, read by the core's reader:
    a pipe or device refused before any read, a file over `limit` bytes by its size; ValueError
    unless it is UTF-8, as every file a run writes is."""
    data = _core.read_file(os.fspath(path), limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"plot: {path}: byte {e.start} (0x{data[e.start]:02x}) is not UTF-8 text, which a "
                         f"scalinglab {what} is") from None


def _read_csv(path):
    try:
        rows = list(csv.reader(io.StringIO(_read_text(path, _core.max_table_bytes, "CSV table"), newline="")))
    except csv.Error as e:
        raise ValueError(f"plot: {path} is not a CSV table ({e})") from None
    if not rows:
        raise ValueError(f"plot: {path} is empty")
    header, body = rows[0], rows[1:]
    return {name: _column([r[i] if i < len(r) else "" for r in body]) for i, name in enumerate(header)}


def _read_toml(path):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            warnings.warn(f"plot: cannot read {path} (Python 3.11's tomllib or the tomli package is needed); "
                          "its [plot] and [[part]] tables are ignored", stacklevel=3)
            return {}
    return tomllib.loads(_read_text(path, _core.max_sweep_file_bytes, "sweep file"))


def _from_directory(path):
    """(columns, sweep) of a results directory (or of its summary.csv)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        folder, summary = path, os.path.join(path, "summary.csv")
    else:
        folder, summary = os.path.dirname(path) or ".", path
    if not os.path.isfile(summary):
        raise ValueError(f"plot: data={path!r}: no summary.csv there (a results directory of scalinglab.run, "
                         "or a table)")
    sweep = {}
    toml = os.path.join(folder, "sweep.toml")
    if os.path.basename(summary) == "summary.csv" and os.path.isfile(toml):
        sweep = _read_toml(toml)
        run = os.path.join(folder, "run.json")
        if os.path.isfile(run):  # the profile this run applied may have changed the title
            import json

            profile = json.loads(_read_text(run, _core.max_sweep_file_bytes, "run record")).get("profile", "")
            over = sweep.get("profile", {}).get(profile, {}) if profile else {}
            if "title" in over:
                sweep["title"] = over["title"]
        sweep.setdefault("title", os.path.basename(os.path.abspath(folder)))
    return _read_csv(summary), sweep


def _columns(data):
    """(columns, sweep): a dict of numpy arrays and the sweep file's tables ({} for a table)."""
    if isinstance(data, (str, os.PathLike)):
        return _from_directory(data)
    if hasattr(data, "columns") and hasattr(data, "to_numpy"):  # a pandas DataFrame
        return {str(c): data[c].to_numpy() for c in data.columns}, {}
    if isinstance(data, dict):
        return {str(k): np.asarray(v) for k, v in data.items()}, {}
    raise TypeError(f"plot: data must be a table (dict of arrays, as scalinglab.run returns), a pandas "
                    f"DataFrame or a results directory, not {type(data).__name__}")


def _varies(column):
    """Whether a column takes more than one value (gaps left out)."""
    if _numeric_kind(column):
        values = column.astype(np.float64)
        return len(np.unique(values[~np.isnan(values)])) > 1
    return len({str(v) for v in column if str(v) != ""}) > 1


def _numeric_kind(column):
    return column.dtype.kind in "fiub"


def _swept(columns, sweep):
    """The parameters a results directory's sweep varies, in its grid's order: the [grid] axes,
    then those a profile adds, kept when the table shows them varying (a profile or set= may have
    fixed one)."""
    names = list(sweep.get("grid", {})) if isinstance(sweep.get("grid"), dict) else []
    profiles = sweep.get("profile", {})
    for over in (profiles.values() if isinstance(profiles, dict) else ()):
        grid = over.get("grid", {}) if isinstance(over, dict) else {}
        names += [n for n in (grid if isinstance(grid, dict) else ()) if n not in names]
    return [n for n in names if n in columns and _varies(columns[n])]


def _defaults(columns, sweep, x, series):
    """(x, y, series, fixed) for a results directory whose sweep has no [plot] x and y, those given
    kept: x the first swept parameter holding numbers, y the first scalar metric (the first column
    with _std and _sem columns), series the next swept parameter, or the parts when several; fixed
    {parameter: value} holds each other swept parameter at its first value, so that no curve runs
    through the points of several of its values. None for what the sweep cannot give."""
    swept = _swept(columns, sweep)
    if x is None:
        x = next((n for n in swept if _numeric_kind(columns[n])), None)
    y = next((m for m in columns if f"{m}_std" in columns and f"{m}_sem" in columns and _numeric_kind(columns[m])),
             None)
    others = [n for n in swept if n not in (x, series)]
    if series is None:
        series = others.pop(0) if others else "part" if "part" in columns and _varies(columns["part"]) else None
    fixed = {}
    for n in others:
        values = [v for v in columns[n] if not (v == "" or (isinstance(v, float) and math.isnan(v)))]
        fixed[n] = values[0]
    return x, y, series, fixed
