"""scalinglab.plot: a sweep's table drawn with matplotlib, in the style of the lab's gnuplot figures.

    >>> import scalinglab as sl
    >>> table = sl.run({...}, out="/tmp/run", columns="all")   # "all": the m_sem columns of the bands
    >>> fig = sl.plot(table, x="d", y="error", series="T", log="xy")
    >>> fig = sl.plot("/tmp/run")            # a results directory: its [plot] table gives the defaults

matplotlib is imported when a figure is drawn, never by `import scalinglab`. See docs/python.md.
"""

import csv
import io
import math
import numbers
import os
import re
import textwrap
import warnings

import numpy as np

from . import _scalinglab as _core
from ._plot_reference import reference_curve, references as _references
from ._plot_text import label_text as _label_text, plain as _plain, series_number as _series_number

__all__ = ["plot", "update_legend", "PALETTE"]

# The palette of the lab's gnuplot figures: Okabe-Ito without yellow, then tableau colours.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
           "#56B4E9", "#000000", "#8c564b", "#7f7f7f", "#bcbd22")
BAND_ALPHA = 0.18
BAND_ALPHA_MANY = 0.10    # bands of more than three curves: lighter, so that overlaps stay readable
BAND_FLOOR = 3            # on a log y axis a band reaches down to at most mean / BAND_FLOOR
LINE_WIDTH = 1.8
THIN_WIDTH = 1.0          # a simulation drawn under its theory: thin, with its markers
THEORY_WIDTH = 2.2        # theory and references pinned to a series, drawn on top
MARKER_SIZE = 3.5
GUIDES = ("#222222", "#777777")   # references that belong to no series: black, then grey
GUIDE_STYLES = ((0, (4, 2.5)), (0, (1, 2)), (0, (5, 2, 1, 2)))  # dashed, dotted, dash-dot
MAX_MARKERS = 60          # curves with more points are drawn without markers
AXES_SIZE = (5.6, 3.5)    # inches of the data area of a figure made here
LEGEND_BELOW = 0.7        # a legend wider than this fraction of the data area goes below it
NOTE_COLOUR = "#555555"

_OPERATORS = ("<=", ">=", "==", "!=", "<", ">", "=")


# ---- reading the data ------------------------------------------------------------------------

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


# ---- columns, values and conditions ----------------------------------------------------------

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


# ---- curves ----------------------------------------------------------------------------------

class _Curve:
    def __init__(self, metric, part, value, label):
        self.metric, self.part, self.value, self.label = metric, part, value, label
        self.raw = label  # the label as the lab words it, before markup: the key of a legend map
        self.rows = []
        self.theory = False
        self.colour = None
        self.thin = False  # a simulation with a theory in its colour


def _deterministic(measure):
    from . import describe

    try:
        return bool(describe(measure).get("deterministic", False))
    except (ValueError, RuntimeError):  # a measure this build does not know
        return False


def _names(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _log_axes(log):
    if log is None or log is False:
        return set()
    if log is True:
        return {"x", "y"}
    items = [log] if isinstance(log, str) else list(log)
    axes = set()
    for item in items:
        if item not in ("x", "y", "xy", "yx"):
            raise ValueError(f"plot: log={log!r}: expected 'x', 'y', 'xy' or a list of 'x' and 'y'")
        axes |= set(item)
    return axes


def _plural(n, word="point"):
    return f"{n} {word}{'' if n == 1 else 's'}"


def plot(data, x=None, y=None, series=None, *, log=None, band=None, where=None, theory=None, reference=None,
         legend=None, ax=None, title=None, xlabel=None, ylabel=None):
    """Draws a sweep's aggregated table with matplotlib and returns the Figure.

    data: the table of scalinglab.run (dict of numpy arrays), a pandas DataFrame with the same
    columns, or a results directory (its summary.csv; then x, y, series, log, band, where, title,
    xlabel, ylabel, dashed, legend and reference default to its sweep.toml's [plot] table, and
    keywords given here override).
    x: a column (a parameter, or a metric placed at its mean); y: a metric or a list of metrics;
    series: a column, one curve per value in table order ("part" for one curve per part).
    log: "x", "y", "xy" or a list of them (default: none). band: the shaded band around each mean,
    "std" or "sem" (one standard deviation or standard error over the runs) or "none"; default
    "sem", or the band of a results directory's [plot] table (whose default is also "sem"). where: only
    rows meeting it, as {column: value} equalities, a comparison such as "d<=256" (operators <,
    <=, >, >=, ==, !=) or a list of those; as in sweeps, a condition on a parameter a part lacks
    keeps that part's rows.

    Theory is drawn dashed, without band, in the colour of its simulation: the rows of a part
    whose measure is deterministic (a results directory's [[part]] tables say which measure each
    part runs; a table's part counts when it is named after a deterministic measure), and any
    part or metric named in `theory` (a name or a list; a directory's [plot] dashed metrics too).
    A theory curve takes the colour of the first other curve of the same metric (any metric for
    a theory metric) and the same value of a series other than `part`; otherwise the next colour.
    A simulation with a theory in its colour is drawn thin with its markers, the theory on top.

    reference: theory lines, as a [plot] reference: a formula of x and the table's parameters
    ("d^(1-alpha)", evaluated by the lab's expression evaluator), a dict {"expr": formula,
    "label": text, "where": condition}, a function of x (numpy array in, array out; its name is
    its label) or a dict {"fn": function, "label": text, "where": condition}, or a list of those.
    Other variables come from the first row matching where (and the plot's where); a reference
    whose where fixes the series is that curve's theory (dashed in its colour), others are black,
    then grey. legend: {lab's label: text} replacing legend entries ("error, d = 10": "SGD, d = 10").

    On a log axis, points that cannot be drawn (y <= 0, x <= 0; inf or nan anywhere) are left out
    and a note on the figure says how many. The legend sits right of the data area (below it for
    long labels); the figure is widened for it, the data area keeping its size. ax: draw into this
    Axes (its figure is not resized); the figure is returned either way.
    """
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    columns, sweep = _columns(data)
    spec = sweep.get("plot", {}) if isinstance(sweep.get("plot"), dict) else {}
    if spec.get("kind", "lines") != "lines" and (x is None or y is None):
        raise ValueError(f"plot: the directory's [plot] is of kind {spec['kind']!r}, drawn from series metrics that "
                         "summary.csv does not hold (see the directory's plot.png); give x= and y= for a line plot")

    # Defaults: the directory's [plot], then this function's.
    x = x if x is not None else spec.get("x")
    y = y if y is not None else spec.get("y")
    series = series if series is not None else spec.get("series")
    log = log if log is not None else spec.get("log", ())
    band = band if band is not None else spec.get("band", "sem") if spec else "sem"  # a [plot] as its plot.png
    where = where if where is not None else spec.get("where")
    title = title if title is not None else (_label_text(spec["title"]) if "title" in spec else
                                             _plain(sweep["title"]) if "title" in sweep else None)
    xlabel = xlabel if xlabel is not None else _label_text(spec.get("xlabel"))
    ylabel = ylabel if ylabel is not None else _label_text(spec.get("ylabel"))
    references = _references(reference if reference is not None else spec.get("reference"))
    legend = legend if legend is not None else spec.get("legend", {})
    if not isinstance(legend, dict):
        raise TypeError(f"plot: legend must be a dict {{label: text}}, not {type(legend).__name__}")

    if x is None or y is None:
        raise ValueError(f"plot: give x= (a parameter or metric) and y= (a metric or a list of metrics); "
                         f"columns: {_available(columns)}")
    _need(columns, x, "x")
    metrics = _names(y)
    if not metrics:
        raise ValueError(f"plot: y= is empty; columns: {_available(columns)}")
    for m in metrics:
        _need(columns, m, "y")
        if not _numeric(columns[m]):
            raise ValueError(f"plot: y={m!r} holds words, not numbers")
    if not _numeric(columns[x]):
        raise ValueError(f"plot: x={x!r} holds words, not numbers; draw one curve per value with series={x!r}")
    if series is not None:
        _need(columns, series, "series")
    if band not in ("std", "sem", "none", None, False):
        raise ValueError(f"plot: band={band!r}: expected 'std', 'sem' or 'none'")
    band = "none" if band in (None, False) else band
    logs = _log_axes(log)

    n = len(columns[x])
    keep = _select(columns, where, n)

    # Parts: their labels and which are theory.
    has_parts = "part" in columns
    part_info = {str(p.get("name")): p for p in sweep.get("part", []) if isinstance(p, dict)}
    labels = {name: str(p.get("label", name)) for name, p in part_info.items()}
    # A part is theory when its measure is deterministic, unless its table says otherwise (theory = false).
    theory_parts = {name for name, p in part_info.items()
                    if (bool(p["theory"]) if "theory" in p else bool(p.get("measure")) and _deterministic(p["measure"]))}
    parts_present = []
    if has_parts:
        for p in columns["part"][keep]:
            if str(p) not in parts_present:
                parts_present.append(str(p))
        if not part_info:  # a table: a part named after a deterministic measure is theory
            from . import measures

            known = set(measures())
            theory_parts |= {p for p in parts_present if p in known and _deterministic(p)}
    theory_metrics = set(_names(spec.get("dashed")))
    all_parts = {str(p) for p in columns["part"]} if has_parts else set()
    for name in _names(theory):
        if name in all_parts:
            theory_parts.add(name)
        elif name in metrics:
            theory_metrics.add(name)
        else:
            raise ValueError(f"plot: theory={name!r} names neither a part ({', '.join(sorted(all_parts)) or 'none'}) "
                             f"nor a metric of y ({', '.join(metrics)})")

    # One curve per (metric, part, series value), in order of appearance: metrics outer, rows inner.
    several_parts = has_parts and series != "part" and len(parts_present) > 1
    curves, index = [], {}
    for m in metrics:
        for i in np.flatnonzero(keep):
            part = str(columns["part"][i]) if has_parts else None
            value = columns[series][i] if series is not None else None
            k = (m, part if (several_parts or series == "part") else None, _key(value))
            if k not in index:
                # As the lab's figures word it (so that a [plot] legend fits both): the metric (when
                # several), the series value, the part (when several); raw text and shown text.
                raw, shown = [], []
                if len(metrics) > 1:
                    raw.append(m)
                    shown.append(_plain(m))
                if series == "part":
                    raw.append(labels.get(part, part))
                    shown.append(_plain(raw[-1]))
                elif series is not None and not (_missing(value) and (several_parts or len(metrics) > 1)):
                    text = _value_text(value)  # (a part without the series' parameter is named by its part)
                    number = _series_number(float(value)) if isinstance(value, numbers.Real) and \
                        not isinstance(value, (bool, np.bool_)) else None
                    raw.append(f"{series} = {text}")
                    shown.append(f"{_plain(series)} = {number or _plain(text)}")
                if several_parts:
                    raw.append(labels.get(part, part))
                    shown.append(_plain(raw[-1]))
                c = _Curve(m, part, k[2], ", ".join(shown) if shown else _plain(m))
                c.raw = ", ".join(raw) if raw else m
                c.theory = m in theory_metrics or (part is not None and part in theory_parts)
                index[k] = c
                curves.append(c)
            index[k].rows.append(i)

    # Points that cannot be drawn: counted per reason, written on the figure.
    drops = {}

    def drop(reason, count):  # reason: "error = 0 (log y axis)"
        if count:
            drops[reason] = drops.get(reason, 0) + count

    xs_all = columns[x].astype(np.float64)
    kept_curves = []
    for c in curves:
        rows = np.asarray(c.rows)
        cx, cy = xs_all[rows], columns[c.metric][rows].astype(np.float64)
        if np.all(np.isnan(cy)):  # a part without this metric: no curve, nothing lost
            continue
        ok = np.ones(len(rows), dtype=bool)
        m = _plain(c.metric)
        for reason, bad in ((f"{_plain(x)} = inf", cx == np.inf), (f"{_plain(x)} = -inf", cx == -np.inf),
                            (f"{_plain(x)} = nan", np.isnan(cx)),
                            (f"{_plain(x)} = 0 (log x axis)", (cx == 0) if "x" in logs else None),
                            (f"{_plain(x)} < 0 (log x axis)", (cx < 0) if "x" in logs else None),
                            (f"{m} = inf", cy == np.inf), (f"{m} = -inf", cy == -np.inf), (f"{m} = nan", np.isnan(cy)),
                            (f"{m} = 0 (log y axis)", (cy == 0) if "y" in logs else None),
                            (f"{m} < 0 (log y axis)", (cy < 0) if "y" in logs else None)):
            if bad is not None:
                drop(reason, int(np.sum(bad & ok)))
                ok &= ~bad
        rows = rows[ok]
        order = np.argsort(xs_all[rows], kind="stable")
        c.rows = rows[order]
        kept_curves.append(c)

    # The legend texts of a [plot] legend (or legend=), shown as written.
    for key, text in legend.items():
        hits = [c for c in kept_curves if c.raw == str(key)]
        if not hits:
            warnings.warn(f"plot: legend: no curve is labelled {str(key)!r}", stacklevel=2)
        for c in hits:
            c.label = _plain(text)

    # Colours: simulations in order, then each theory in its simulation's colour or the next one.
    plain = [c for c in kept_curves if not c.theory]
    for i, c in enumerate(plain):
        c.colour = PALETTE[i % len(PALETTE)]
    spare = len(plain)
    for c in kept_curves:
        if not c.theory:
            continue
        twin = None
        for s in plain:
            if series is not None and series != "part" and s.value != c.value:
                continue
            if c.metric not in theory_metrics and s.metric != c.metric:
                continue
            if not (c.part in theory_parts) and c.part is not None and s.part is not None and s.part != c.part:
                continue
            twin = s
            break
        if twin is not None:
            c.colour = twin.colour
        else:
            c.colour = PALETTE[spare % len(PALETTE)]
            spare += 1

    # References between the plotted extremes of x: a reference whose where fixes the series is
    # that curve's theory (its colour), others are guides (black, then grey).
    drawn = [c for c in kept_curves if len(c.rows)]
    ref_lines = []  # (xs, ys, colour, linestyle, label)
    if references and drawn:
        lo = min(float(xs_all[c.rows].min()) for c in drawn)
        hi = max(float(xs_all[c.rows].max()) for c in drawn)
        series_colour = {}
        for c in plain:
            if len(c.rows):
                series_colour.setdefault(c.value, c.colour)
        guide = 0
        for ref in references:
            rows = np.flatnonzero(keep & _select(columns, ref.where, n))
            if not len(rows):
                name = ref.expr if ref.expr is not None else ref.label
                warnings.warn(f"plot: no row matches the where of reference {name!r}; curve skipped", stacklevel=2)
                continue
            base = int(rows[0])  # its other variables: that row's numbers
            row = {k: float(v[base]) for k, v in columns.items() if _numeric(v) and not _missing(v[base])}
            rx, ry = reference_curve(ref, row, x, "x" in logs, "y" in logs, lo, hi)
            pinned = None
            if series is not None and series != "part":
                fixed = [op for name, op, _ in _conditions(ref.where) if name == series]
                if fixed and all(op == "==" for op in fixed):
                    pinned = series_colour.get(_key(columns[series][base]))
            if pinned is not None:
                ref_lines.append((rx, ry, pinned, (0, (4, 2.5)), THEORY_WIDTH, ref.label))
            else:
                ref_lines.append((rx, ry, GUIDES[min(guide, len(GUIDES) - 1)],
                                  GUIDE_STYLES[guide % len(GUIDE_STYLES)], 1.5, ref.label))
                guide += 1

    # A simulation with a theory in its colour is drawn thin with its markers, the theory on top of
    # it: a dashed line over a thick solid one of the same colour would vanish where they agree.
    theory_colours = {c.colour for c in drawn if c.theory} | {line[2] for line in ref_lines}
    for c in plain:
        c.thin = c.colour in theory_colours

    # Drawing.
    own_figure = ax is None
    if own_figure:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(AXES_SIZE[0] + 2.5, AXES_SIZE[1] + 1.3))
        ax = fig.add_axes([0.12, 0.15, AXES_SIZE[0] / (AXES_SIZE[0] + 2.5), AXES_SIZE[1] / (AXES_SIZE[1] + 1.3)])
    fig = ax.figure.figure  # the top-level figure (ax may sit in a subfigure)
    if "x" in logs:
        ax.set_xscale("log")
    if "y" in logs:
        ax.set_yscale("log")

    def spread_of(c):
        col = f"{c.metric}_{band}"
        if c.theory or band == "none" or col not in columns:
            return None
        spread = columns[col][c.rows].astype(np.float64)
        spread = np.where(np.isfinite(spread), spread, 0.0)
        return spread if np.any(spread > 0) else None

    # Many overlapping bands would darken into a grey mass: lighter ones from four curves on.
    band_alpha = BAND_ALPHA_MANY if sum(spread_of(c) is not None for c in drawn) > 3 else BAND_ALPHA
    handles, texts, banded, band_cut = [], [], False, 0
    for layer in (False, True):  # simulations first, theory on top
        for c in drawn:
            if c.theory != layer:
                continue
            px = xs_all[c.rows]
            py = columns[c.metric][c.rows].astype(np.float64)
            if c.theory:
                line, = ax.plot(px, py, color=c.colour, lw=THEORY_WIDTH, ls="--", dashes=(4, 2.5), zorder=3)
            else:
                spread = spread_of(c)
                if spread is not None:
                    lo, hi = py - spread, py + spread
                    if "y" in logs:
                        # mean - sem <= 0 has no place on a log axis (the band would run to the
                        # bottom of the frame): the lower edge is cut at mean/3, and the figure says so.
                        cut = lo < py / BAND_FLOOR
                        band_cut += int(np.sum(cut))
                        lo = np.where(cut, py / BAND_FLOOR, lo)
                    # On a log axis the view follows a band only within a factor 3 of the mean: a band
                    # rising by decades leaves the frame rather than squash the curves.
                    outline = np.column_stack([np.r_[px, px[::-1]], np.r_[hi, lo[::-1]]])
                    ax.add_collection(PolyCollection([outline], facecolors=c.colour, alpha=band_alpha, lw=0,
                                                     zorder=1), autolim=False)
                    view_hi = np.minimum(hi, py * BAND_FLOOR) if "y" in logs else hi
                    ax.update_datalim(np.column_stack([np.r_[px, px], np.r_[lo, view_hi]]))
                    banded = True
                marker = "o" if len(px) <= MAX_MARKERS else None
                if c.thin:
                    line, = ax.plot(px, py, color=c.colour, lw=THIN_WIDTH, marker=marker, ms=MARKER_SIZE * 1.3,
                                    zorder=2)
                else:
                    line, = ax.plot(px, py, color=c.colour, lw=LINE_WIDTH, marker=marker, ms=MARKER_SIZE, zorder=2)
            line.set_label(c.label)
            handles.append(line)
            texts.append(c.label)
    for rx, ry, colour, style, width, label in ref_lines:
        line, = ax.plot(rx, ry, color=colour, lw=width, ls=style, zorder=3.5, label=label)
        handles.append(line)
        texts.append(label)
    band_entry = (Patch(facecolor="#808080", alpha=min(1.0, 2 * band_alpha), lw=0),
                  f"band: ± 1 {band} over runs") if banded else None

    ax.autoscale_view()
    _style(ax, logs)
    _log_labels(ax, logs)
    ax.set_xlabel(xlabel if xlabel is not None else _plain(x))
    ax.set_ylabel(ylabel if ylabel is not None else ", ".join(map(_plain, metrics)))
    if title:
        ax.set_title(textwrap.fill(str(title), 70), fontsize="medium")

    notes = []
    said = []  # one line, as on the lab's figures: "not shown: 3 points with error = 0 (log y axis); ..."
    if drops:
        said.append("not shown: " + "; ".join(f"{_plural(count)} with {reason}" for reason, count in drops.items()))
    if band_cut:
        said.append(f"band cut at mean/3 at {_plural(band_cut)} (log y axis)")
    # A table of run()'s default columns has the means only: say why no band is drawn.
    from_run = bool(getattr(data, "attrs", None) and data.attrs.get("out"))
    unbanded = sorted({f"{c.metric}_{band}" for c in drawn if not c.theory and f"{c.metric}_{band}" not in columns})
    if from_run and band != "none" and unbanded:
        said.append(f"no band: the table has no {', '.join(unbanded)} (run(..., columns=\"all\") or plot the results folder)")
    if said:
        notes.append("; ".join(said))
    if not kept_curves:
        notes.append("no points to draw (check where= and the columns)")
    ax._scalinglab_legend = {"handles": handles, "texts": texts, "band": band_entry, "notes": notes,
                             "resize": own_figure, "note": None}
    _legend_and_notes(fig, ax, ax._scalinglab_legend)
    return fig


def update_legend(fig):
    """Lays out the legend of a figure of plot() again, with the lines added to it since (give them
    a label: ax.plot(..., label="fitted minima"), ax.axvline(..., label="chi_bar")), so that every
    line drawn has an entry; the band's entry stays last. Returns None (a notebook cell ending with
    the call does not show the figure a second time)."""
    axes = [a for a in getattr(fig, "axes", []) if hasattr(a, "_scalinglab_legend")]
    if not axes:
        raise ValueError("update_legend: expected a figure drawn by scalinglab.plot")
    for ax in axes:
        state = ax._scalinglab_legend
        known = {id(h) for h in state["handles"]}
        for artist in [*ax.get_lines(), *ax.collections]:
            label = artist.get_label()
            if id(artist) not in known and label and not label.startswith("_"):
                state["handles"].append(artist)
                state["texts"].append(label)
                known.add(id(artist))
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        if state["note"] is not None:
            state["note"].remove()
        _legend_and_notes(ax.figure.figure, ax, state)


def _style(ax, logs):
    """The lab's look: light grey grid (major and, on log axes, minor), left and bottom spines,
    ticks outwards."""
    ax.set_axisbelow(True)
    ax.grid(True, which="major", color="#e4e4e4", lw=0.8)
    for axis in sorted(logs):
        ax.grid(True, which="minor", axis=axis, color="#f3f3f3", lw=0.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color("#404040")
    ax.tick_params(which="both", direction="out", color="#404040")


def _log_labels(ax, logs):
    """On a log axis spanning less than two decades, ticks read 0.2, 0.3, ... rather than
    2x10^-1 (as the lab's figures, which switch to 10^k from two decades on)."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            return f"{x:g}"

    for axis, limits in (("x", ax.get_xlim()), ("y", ax.get_ylim())):
        lo, hi = sorted(limits)
        if axis in logs and lo > 0 and hi / lo < 100:
            target = ax.xaxis if axis == "x" else ax.yaxis
            target.set_major_formatter(Plain(labelOnlyBase=False))
            target.set_minor_formatter(Plain(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


def _renderer(fig):
    canvas = fig.canvas
    if hasattr(canvas, "get_renderer"):
        return canvas.get_renderer()
    fig.draw_without_rendering()
    return fig._get_renderer()  # noqa: SLF001 (matplotlib's own accessor for other canvases)


def _legend_and_notes(fig, ax, state):
    """The notes about points left out, in small grey text under the x axis label; the legend
    right of the data area, or below the notes when its labels are long. A figure made here grows
    to hold them, the data area keeping its size in inches. state: the axes' handles and texts,
    band entry, notes and whether to resize; the note drawn is recorded there."""
    handles, texts, notes, resize = list(state["handles"]), list(state["texts"]), state["notes"], state["resize"]
    if state["band"] is not None:
        handles.append(state["band"][0])
        texts.append(state["band"][1])
    dpi = fig.dpi
    renderer = _renderer(fig)
    box = ax.get_window_extent(renderer)
    tight = ax.get_tightbbox(renderer, bbox_extra_artists=[])  # ticks, labels, title: no legend
    margin = {"left": (box.x0 - tight.x0) / dpi, "right": max(0.0, (tight.x1 - box.x1) / dpi),
              "bottom": (box.y0 - tight.y0) / dpi, "top": (tight.y1 - box.y1) / dpi}
    gap = 0.06  # inches between stacked pieces
    note, note_height = None, 0.0
    if notes:
        note = ax.annotate("\n".join(notes), xy=(0, 0), xycoords="axes fraction",
                           xytext=(-margin["left"] * 72, -(margin["bottom"] + gap) * 72), textcoords="offset points",
                           ha="left", va="top", fontsize="x-small", color=NOTE_COLOUR, annotation_clip=False)
        note_height = note.get_window_extent(renderer).height / dpi + gap
    state["note"] = note
    legend, below = None, False
    kwargs = dict(frameon=False, fontsize="small", handlelength=2.6, borderaxespad=0.0)
    if handles:
        legend = ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(1.03, 1.0), **kwargs)
        if legend.get_window_extent(renderer).width > LEGEND_BELOW * box.width:  # long labels: below
            below = True
            legend.remove()
            drop = (margin["bottom"] + note_height + 2 * gap) * dpi / box.height
            ncol = 2 if max(len(t) for t in texts) <= 45 else 1
            legend = ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(0.0, -drop), ncol=ncol, **kwargs)
            if ncol > 1 and legend.get_window_extent(renderer).width > 1.5 * box.width:
                legend.remove()
                legend = ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(0.0, -drop), ncol=1, **kwargs)
    if not resize:
        return
    axw, axh = box.width / dpi, box.height / dpi
    leg = legend.get_window_extent(renderer) if legend is not None else None
    legw, legh = (leg.width / dpi, leg.height / dpi) if leg is not None else (0.0, 0.0)
    notew = note.get_window_extent(renderer).width / dpi if note is not None else 0.0
    pad = 0.15
    left, top = margin["left"] + pad, margin["top"] + pad
    bottom = margin["bottom"] + note_height + pad
    if below:
        bottom += legh + 2 * gap
        right = max(margin["right"], legw - axw) + pad
    else:
        right = max(margin["right"], 0.03 * axw + legw) + pad
    right = max(right, notew - margin["left"] - axw + pad)
    width = left + axw + right
    height = max(top + axh + bottom, top + legh + pad)
    fig.set_size_inches(width, height)
    ax.set_position([left / width, (height - top - axh) / height, axw / width, axh / height])
