"""A sweep given as a dict, written as the TOML text of a sweep file (docs/sweeps.md), with a map
from each line and column of that text back to the dict's key ("grid.d[2]", "params.N"), so that
the parser's messages, which cite a file the user never wrote, can name the key instead."""

import hashlib
import json
import math
import numbers
import re

import numpy as np

from ._values import _as_given, _shown


def _key(key):
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value, where):
    """A Python value as a TOML value, and the spans [(start, end, key path)] of its parts in that
    text (0-based, end excluded): each element of a list, each entry of an inline table."""
    if isinstance(value, (bool, np.bool_)):
        return ("true" if value else "false"), []
    if isinstance(value, numbers.Integral):
        return str(int(value)), []
    if isinstance(value, numbers.Real):
        f = float(value)
        if math.isnan(f):
            raise ValueError(f"{where}: nan is not a parameter value")
        return (('"inf"' if f > 0 else '"-inf"') if math.isinf(f) else repr(f)), []
    if isinstance(value, str):
        return json.dumps(value), []  # TOML basic strings take JSON's escapes
    if isinstance(value, (list, tuple, np.ndarray)):
        items = [(f"{where}[{i}]", v) for i, v in enumerate(value)]
        return _joined("[", "]", [("", path, v) for path, v in items])
    if isinstance(value, dict):
        return _joined("{", "}", [(f"{_key(str(k))} = ", f"{where}.{k}", v) for k, v in value.items()])
    raise TypeError(f"{where}={_shown(value)}: a sweep value must be a number, string, bool, list or dict, "
                    f"not {type(value).__name__}")


def _joined(open_, close, items):
    """items [(prefix, path, value)] written as `open_ prefix value, ... close`, with their spans."""
    text, spans = open_, []
    for n, (prefix, path, v) in enumerate(items):
        if n:
            text += ", "
        start = len(text)
        inner, inner_spans = _value(v, path)
        text += prefix
        spans += [(len(text) + a, len(text) + b, p) for a, b, p in inner_spans]
        text += inner
        spans.append((start, len(text), path))
    return text + close, spans


def toml_text(sweep):
    """(text, spans): the sweep file's text and, per line (1-based), the spans of its keys as
    [(line, first column, column after the end, key path)] with 1-based columns."""
    if not isinstance(sweep, dict):
        raise TypeError(f"a sweep is a dict or a path to a sweep file, not {type(sweep).__name__}")
    top, tables, arrays = [], [], []
    for key, value in sweep.items():
        key = str(key)
        if isinstance(value, dict):
            tables.append((key, value))
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
            arrays.append((key, value))
        else:
            top.append((key, value, key))
    lines, spans = [], []

    def entry(key, value, path):
        prefix = f"{_key(key)} = "
        text, inner = _value(value, path)
        lines.append(prefix + text)
        spans.append((len(lines), 1, len(prefix + text) + 1, path))
        spans.extend((len(lines), len(prefix) + a + 1, len(prefix) + b + 1, p) for a, b, p in inner)

    def header(text, path):
        lines.extend(["", text])
        spans.append((len(lines), 1, len(text) + 1, path))

    for key, value, path in top:
        entry(key, value, path)
    for key, table in tables:
        header(f"[{_key(key)}]", key)
        for k, v in table.items():
            entry(str(k), v, f"{key}.{k}")
    for key, items in arrays:
        for n, table in enumerate(items):
            header(f"[[{_key(key)}]]", f"{key}[{n}]")
            for k, v in table.items():
                entry(str(k), v, f"{key}[{n}].{k}")
    return "\n".join(lines) + "\n", spans


def digest(text, profile, sets):
    """A short name for a sweep's content: the same text, profile and overrides give the same one."""
    h = hashlib.sha256("\0".join([text, profile, *sets]).encode("utf-8"))
    return h.hexdigest()[:10]


def key_at(spans, line, column):
    """The key path written at (line, column) of the text: the narrowest span holding the column,
    else the line's own key; None for a line that holds none."""
    on_line = [(b - a, p) for ln, a, b, p in spans if ln == line and a <= column < b]
    if not on_line:
        on_line = [(b - a, p) for ln, a, b, p in spans if ln == line]
        on_line = on_line[:1]  # the line's own key (listed first)
    return min(on_line)[1] if on_line else None


def _label_path(label):
    """The key path a parser's section label stands for: "[grid].d" -> "grid.d", "[plot] x" ->
    "plot.x", "[[check]] #2 slope tol" -> "check[1].slope.tol", "top level" -> ""; None if `label`
    is no such label."""
    if label == "top level":
        return ""
    m = re.fullmatch(r"\[\[([\w-]+)\]\](?: #(\d+))?((?:[. ][\w-]+)*)", label)
    if m:
        base = m.group(1) + (f"[{int(m.group(2)) - 1}]" if m.group(2) else "")
        return base + m.group(3).replace(" ", ".")
    m = re.fullmatch(r"\[([\w.-]+)\]((?:[. ][\w-]+)*)", label)
    if m:
        return m.group(1) + m.group(2).replace(" ", ".")
    return label if re.fullmatch(r"[\w-]+", label) else None


def _covers(label, path):
    """Whether the section label says no more than the key path does."""
    lp = _label_path(label)
    if lp is None:
        return False
    return lp == "" or path == lp or path.startswith(lp + ".") or path.startswith(lp + "[") or \
        re.split(r"[.\[]", path)[-1].rstrip("]") == lp


def _same(given, text):
    """Whether a value of the dict is the parser's text of it (numbers compared as numbers)."""
    if isinstance(given, (list, tuple, dict, np.ndarray)):
        return False
    if isinstance(given, numbers.Real) and not isinstance(given, (bool, np.bool_)):
        try:
            return float(given) == float(text)
        except ValueError:
            return False
    if isinstance(given, (bool, np.bool_)):
        return text == ("true" if given else "false")
    return str(given) == text


def _parameter_key(sweep, name, value, part):
    """Where the dict gives parameter `name` (the value the parser quotes, and the part it was
    reading, may narrow it down): "params.N", "grid.d[2]", "part[0].params.scheme"; or None."""
    found = []  # (value matches, path)

    def look(table, path):
        if not isinstance(table, dict) or name not in table:
            return
        v = table[name]
        if isinstance(v, (list, tuple, np.ndarray)):
            hits = [i for i, x in enumerate(v) if _same(x, value)]
            found.append((bool(hits), f"{path}.{name}[{hits[0]}]" if hits else f"{path}.{name}"))
        else:
            found.append((_same(v, value), f"{path}.{name}"))

    parts = sweep.get("part")
    if isinstance(parts, (list, tuple)):
        for n, p in enumerate(parts):
            if isinstance(p, dict) and (part is None or str(p.get("name")) == part):
                look(p.get("params"), f"part[{n}].params")
    look(sweep.get("params"), "params")
    look(sweep.get("grid"), "grid")
    grid = sweep.get("grid")
    if isinstance(grid, dict):  # linked axes: a list of tables setting several parameters together
        for axis, values in grid.items():
            if isinstance(values, (list, tuple)):
                for i, linked in enumerate(values):
                    look(linked, f"grid.{axis}[{i}]")
    if not found:
        return None
    return next((p for hit, p in found if hit), found[0][1])


_MISSING = object()


def _at(sweep, path):
    """The value of the dict at a key path ("grid.d[1]", "part[0].params.scheme"), or _MISSING."""
    value = sweep
    for key, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path):
        try:
            value = value[int(index)] if index else value[key]
        except (KeyError, IndexError, TypeError, ValueError):
            return _MISSING
    return value


def _in_python(rest, sweep, path):
    """The parser's words about the value at `path` with the value shown as given in Python: the
    text the parser quotes ('true' for True) is not what the user typed, and a value of the wrong
    shape (a list where a number goes) is named."""
    value = _at(sweep, path)
    if value is _MISSING or isinstance(value, dict):
        return rest
    name = re.split(r"[.\[]", re.sub(r"(\[\d+\])+$", "", path))[-1]
    rest = _as_given(rest, {name: value})
    if isinstance(value, (list, tuple, np.ndarray)) and re.search(r"\bexpected an? [^:]*$", rest):
        rest += f", not {_shown(value.tolist() if isinstance(value, np.ndarray) else value)}"
    return rest


def explain(message, file, spans, sweep):
    """A parser's message about the TOML text written for `sweep` (named `file`) in the dict's
    terms: "grid.d[1]: ..." instead of "sweep.toml:7:9: [grid].d: ..."."""
    m = re.match(re.escape(file) + r"(?::(\d+):(\d+))?:? (.*)", message, re.S)
    if not m:
        return message
    rest = m.group(3)
    # The parser may cite the place twice ("f:5:6: [grid].d: f:5:6: [grid].d: expected ..."): once is enough.
    head, cited, tail = rest.partition(message[:m.start(3)])
    if cited and tail.startswith(head):
        rest = tail
    if m.group(1):
        path = key_at(spans, int(m.group(1)), int(m.group(2)))
    else:  # a grid point's parameter: "grid point d=x: parameter d='x' is not a valid int"
        p = re.search(r"\bparameter ([A-Za-z_]\w*)=(?:'([^']*)'|(\S+?))(?= |:|,|$)", rest)
        part = re.match(r"part (\S+)", rest)
        path = p and _parameter_key(sweep, p.group(1), p.group(2) if p.group(2) is not None else p.group(3),
                                    part and part.group(1))
    if path is None:
        return "sweep: " + rest
    label = re.match(r"(top level|\[\[[\w-]+\]\](?: #\d+)?(?:[. ][\w-]+)*|\[[\w.-]+\](?:[. ][\w-]+)*|[\w-]+): ", rest)
    if label and _covers(label.group(1), path):
        rest = rest[label.end():]
    return f"{path}: {_in_python(rest, sweep, path)}"
