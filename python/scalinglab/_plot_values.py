"""The columns and values of a table as plot() reads them: numbers or words, the gaps of a sweep of
parts (a parameter another part's measure has), names given as one or a list, and values as a
series label shows them."""

import math
import numbers

import numpy as np


def _numeric(array):
    return array.dtype.kind in "fiub"


def _missing(value):
    """A gap of a [[part]] table: a parameter the part's measure does not have."""
    if isinstance(value, str):
        return value == ""
    try:
        return math.isnan(value)
    except TypeError:
        return value is None


def _available(columns):
    return ", ".join(columns)


def _need(columns, name, argument):
    if name not in columns:
        raise ValueError(f"plot: {argument}={name!r} is not a column of the table; columns: {_available(columns)}")


def _number_text(v):
    """A value as a series label shows it: integers below 10^6 in full, large and small numbers
    as 1e+10 or 2.5e-05 (shortest digits), others as Python prints them."""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == math.floor(v) and abs(v) < 1e6:
        return str(int(v))
    if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
        return np.format_float_scientific(v, trim="-", exp_digits=2)
    return repr(v)


def _value_text(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, numbers.Real):
        return "n/a" if math.isnan(v) else _number_text(float(v))
    return "n/a" if v == "" else str(v)


def _key(v):
    """A hashable, comparable series value (NaN and "" are one 'missing' value)."""
    if _missing(v):
        return None
    if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)):
        return float(v)
    return str(v)


def _names(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]
