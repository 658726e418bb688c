"""Results as tables: a run's aggregated table (numpy arrays or a DataFrame, the columns the caller
keeps) and every task of a results folder. pandas is optional: without it, dicts of numpy arrays."""

import os

import numpy as np

from . import _scalinglab as _core
from ._measures import describe
from ._values import _number, _param

_DTYPES = {"int": np.int64, "float": np.float64, "str": object, "bool": bool}


def _has_pandas():
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


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
    from . import _has_pandas  # the package's, looked up at each call: a test replaces it there

    columns = res["columns"]
    keep = _select(columns, res["axes"], res["metrics"], which)
    kinds = {name: (kind, values) for name, kind, values in columns}
    table = {name: np.asarray(kinds[name][1], dtype=_DTYPES[kinds[name][0]]) for name in keep}
    if not (frame and _has_pandas()):
        return table
    import pandas as pd

    df = pd.DataFrame(table, columns=keep)
    df.attrs.update(out=res["out_dir"], tasks_run=res["tasks_run"], tasks_skipped=res["tasks_skipped"],
                    tasks_reused=res.get("tasks_reused", 0), cache=res.get("cache_dir", ""))
    return df


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
