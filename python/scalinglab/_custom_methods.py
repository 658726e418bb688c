"""Methods of the extrapolation benchmark written in Python (extrapolate(custom=...)): the core
calls them with lists and reads one dict per budget back, so a method's table and its return value
are translated here, and anything malformed is refused naming the method."""

import math

import numpy as np

# What a custom method may return per budget, in the order the core reads them.
_PREDICTION_KEYS = ("N_opt", "N_lo", "N_hi", "D_opt", "L_opt", "L_lo", "L_hi")
_TABLE_COLUMNS = ("N", "D", "C", "budget", "loss")


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
