"""The fitters' arguments from Python: the data as the CSV bytes or text the core's fitters read,
keyword values as the request's text, and the fitters' messages in the caller's terms (keywords for
command-line options, DataFrame rows for lines of the CSV text)."""

import math
import os

from . import _scalinglab as _core


def _is_path(data):
    return isinstance(data, (str, os.PathLike))


def _csv_input(data):
    """(CSV, source) for the fitters: a path's bytes, read as the command line reads a table (by the
    core's reader: a pipe or device refused before any read, a file over the size limit by its size;
    bytes that are not UTF-8 reach the fitter as they are, as on the command line), named by the
    path; or the CSV text of a DataFrame or dict, named "data"."""
    if _is_path(data):
        path = os.fspath(data)
        return _core.read_file(path, _core.max_table_bytes, "CSV table"), path
    return _csv_text(data), "data"


def _csv_text(data):
    """CSV text of a pandas DataFrame or a dict of equal-length columns, made by the core from the
    columns' arrays (a million rows in well under a second; pandas' to_csv with every digit takes
    seconds): numbers as their shortest exact text, NaN as a blank (missing) cell."""
    import numpy as np
    if isinstance(data, dict):
        import pandas as pd
        data = pd.DataFrame(data)
    names, columns = [], []
    for name in data.columns:
        col = data[name]
        names.append(str(name))
        if col.dtype.kind in "biuf":
            columns.append(np.ascontiguousarray(col.to_numpy(dtype=np.float64, na_value=np.nan)))
        else:  # text, categories, dates: as text; a missing value as a blank cell
            columns.append([None if _missing(v) else str(v) for v in col.tolist()])
    return _core.columns_csv(names, columns)


def _missing(v):
    if v is None:
        return True
    try:
        return v != v  # NaN, pandas' NA and NaT
    except (TypeError, ValueError):
        return False


# CLI option -> keyword, for messages about a Python call.
_KEYWORDS = {"--x-min": "x_min=", "--drop-top": "drop_top=", "--best-of": "best_of=", "--bootstrap-starts":
             "bootstrap_starts=", "--group-tolerance": "group_tolerance=", "--skip-bad-slices": "skip_bad_slices=",
             "--drop-missing": "drop_missing=True", "--log-loss": "log_loss=True"}

# An option with a placeholder for its value -> the keyword with a value of its Python type.
_PLACEHOLDERS = {"--grid NAME=...": 'grid={"NAME": [...]}', "--where COLUMN=VALUE": 'where={"COLUMN": VALUE}',
                 "--budget COL": 'budget="COL"'}


def _python_terms(message, data):
    """A fitter's message in the caller's terms: keyword arguments instead of command-line options,
    DataFrame rows instead of lines of the CSV text the data was passed as."""
    import re

    def option(m):
        name = m.group(1)
        # "--level 2: ..." reads "level=2: ..."
        return _KEYWORDS.get(name, name[2:].replace("-", "_") + "=")
    for cli, python in _PLACEHOLDERS.items():
        message = message.replace(cli, python)

    def columns(m):  # "--input-column U --input-column V" reads 'input_column=["U", "V"]'
        return "input_column=[" + ", ".join(f'"{n}"' for n in re.findall(r"--input-column (\w+)", m.group(0))) + "]"
    message = re.sub(r"--input-column \w+(?: --input-column \w+)*", columns, message)
    # A named choice: "--aggregate mean" reads 'aggregate="mean"'.
    message = re.sub(r"(?<![^\s(\[])--([a-z][a-z-]*) (mean|min|isoflop|parametric|both|approach1|huber|mle)\b",
                     lambda m: f'{m.group(1).replace("-", "_")}="{m.group(2)}"', message)
    # An option starts the message or follows a space or a bracket; a "--" inside a file's path is left alone.
    message = re.sub(r"(?<![^\s(\[])(--[a-zA-Z][a-zA-Z-]*)(?: (?=[-+.\d'\"]|inf\b|nan\b))?", option, message)
    index = getattr(data, "index", None)

    def row(m):
        line = int(m.group(1))  # line 1 is the header
        if index is not None and 0 <= line - 2 < len(index):
            return f"row {index[line - 2]!r}"
        return f"row {line - 2}"
    if not _is_path(data):
        message = re.sub(r"\bdata:(\d+)", row, message)
        message = re.sub(r"\bline (\d+)", row, message)
    return message


def _call(data, f, *args):
    try:
        return f(*args)
    except ValueError as e:
        raise ValueError(_python_terms(str(e), data)) from None


def _where_list(where):
    if where is None:
        return []
    if isinstance(where, str):
        return [where]
    if isinstance(where, dict):
        return [f"{k}={v}" for k, v in where.items()]
    return [str(w) for w in where]


def _bounds_text(bounds):
    if bounds is None or isinstance(bounds, str):
        return bounds or ""
    def side(v):
        return "" if v is None or v in (float("inf"), float("-inf")) else format(float(v), ".17g")
    return ",".join(f"{k}={side(lo)}:{side(hi)}" for k, (lo, hi) in bounds.items())


def _grid_list(grid):
    if grid is None:
        return []
    if isinstance(grid, dict):
        return [f"{k}=" + ",".join(repr(float(v)) for v in vs) for k, vs in grid.items()]
    return [str(g) for g in grid]


def _scale(v):
    """A unit factor for the request: a suffix as text ("M"), else a number."""
    return v if isinstance(v, str) else _json_number(v)


def _json_number(v):
    """A number for the JSON request: JSON has no infinity or NaN, so those go as text ("inf")."""
    v = float(v)
    return v if math.isfinite(v) else repr(v)
