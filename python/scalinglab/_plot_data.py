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
