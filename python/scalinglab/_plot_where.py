"""The where= of plot() (and of a reference): which rows of the table are drawn. As in the lab's
sweeps, a condition on a parameter a row lacks (another part's parameter) does not apply to it."""

import numbers
import re

import numpy as np

from ._plot_values import _need, _number_text, _numeric

_OPERATORS = ("<=", ">=", "==", "!=", "<", ">", "=")


def _as_number(value):
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, numbers.Real):
        return float(value)
    text = str(value).strip()
    if text in ("true", "false"):
        return 1.0 if text == "true" else 0.0
    return float(text)  # ValueError for a word


def _as_text(value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return _number_text(float(value))
    return str(value).strip().strip("\"'")


def _conditions(where):
    """where as a list of (column, operator, value): a dict of equalities, a string such as
    "d<=256" or "scheme == q0", or a list of those."""
    if where is None:
        return []
    if isinstance(where, dict):
        return [(str(k), "==", v) for k, v in where.items()]
    if isinstance(where, str):
        m = re.fullmatch(r"\s*([^<>=!\s]+)\s*(<=|>=|==|!=|<|>|=)\s*([^<>=!\s].*?)?\s*", where)
        if not m or not m.group(3):
            raise ValueError(f"plot: where={where!r}: expected COLUMN OP VALUE with OP one of "
                             f"{', '.join(_OPERATORS)} (e.g. 'd<=256'), or a dict {{column: value}}")
        op = "==" if m.group(2) == "=" else m.group(2)
        return [(m.group(1), op, m.group(3))]
    if isinstance(where, (list, tuple)):
        return [c for w in where for c in _conditions(w)]
    raise TypeError(f"plot: where must be a dict, a string or a list of those, not {type(where).__name__}")


def _select(columns, where, n):
    """Boolean mask of the rows meeting every condition. As in the lab's sweeps, a condition on a
    parameter a row lacks ("" or NaN: another part's parameter) does not apply to that row."""
    keep = np.ones(n, dtype=bool)
    for name, op, value in _conditions(where):
        _need(columns, name, "where")
        col = columns[name]
        if _numeric(col):
            try:
                v = _as_number(value)
            except ValueError:
                raise ValueError(f"plot: where: column {name!r} holds numbers, not {value!r}") from None
            c = col.astype(np.float64)
            gap = np.isnan(c)
            close = np.isclose(c, v, rtol=1e-12, atol=0) | (c == v)
            test = {"==": close, "!=": ~close, "<": c < v, "<=": (c <= v) | close, ">": c > v,
                    ">=": (c >= v) | close}[op]
        else:
            if op not in ("==", "!="):
                raise ValueError(f"plot: where: column {name!r} holds words; only == and != apply to it")
            text = np.asarray([str(x) for x in col], dtype=object)
            gap = text == ""
            test = (text == _as_text(value)) if op == "==" else (text != _as_text(value))
        keep &= test | gap
    return keep
