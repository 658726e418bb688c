"""Values between Python and the core: keyword values as the text a user types on the command line
(the core validates that text, so Python and the command line accept the same values), and the
JSON the core returns as Python numbers (inf as float("inf"), null as nan)."""

import math
import numbers
import re
import reprlib

import numpy as np

from ._metric import Estimate, Exact


def _duration(value):
    """A duration keyword as the command line's text: 600 -> "600", "10m" stays (checked by the core)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, str, np.integer, np.floating)):
        raise ValueError(f"checkpoint_every: seconds or a duration such as \"10m\", not {value!r}")
    return value if isinstance(value, str) else repr(float(value))


def _text(value):
    """A keyword value as the text a user would type: True -> "true", inf -> "inf", 0.5 -> "0.5"."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, (list, tuple, np.ndarray)):  # a list parameter: "0.2,0.6,0.95"
        return ",".join(_text(v) for v in value)
    return str(value)


_REPR = reprlib.Repr()
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 8
_REPR.maxstring = _REPR.maxother = 60


def _shown(value):
    """A Python value as a message shows it: as the user wrote it (its repr, cut when long)."""
    return _REPR.repr(value)


def _as_given(message, given):
    """A core message with each keyword value that reached it as converted text ([16, 32] as
    '16,32', None as 'None', True as 'true') shown as the Python value given instead: the user
    never typed that text. given: {parameter name: Python value}."""
    for name, value in given.items():
        if isinstance(value, str) or (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))):
            continue  # numbers and strings reach the core as they read in Python
        text = re.escape(_text(value))
        shown = f"{name}={_shown(value)}"
        message = re.sub(rf"(?<![\w.]){re.escape(name)}=(?:'{text}'|{text}(?![\w.]))", lambda m: shown, message)
    return message


def _number(value):
    """A metric from JSON: null -> nan, "inf"/"-inf" -> float, numbers unchanged."""
    if value is None:
        return math.nan
    if value in ("inf", "-inf"):
        return float(value)
    return value


def _metric(value):
    if isinstance(value, dict):  # a stochastic measure's: {"mean", "std", "sem", "count"} over the runs
        return Estimate({k: _number(value[k]) for k in ("mean", "std", "sem", "count") if k in value})
    if isinstance(value, list):  # a series
        return [_number(v) for v in value]
    return Exact(_number(value))  # a deterministic measure's number


def _param(value):
    """A parameter from JSON: numbers unchanged, "inf"/"-inf" -> float, words unchanged."""
    return float(value) if value in ("inf", "-inf") else value


def _assignments(sets):
    if sets is None:
        return []
    if isinstance(sets, str):
        return [sets]
    if isinstance(sets, dict):
        return [f"{k}={_text(v)}" for k, v in sets.items()]
    return [str(s) for s in sets]
