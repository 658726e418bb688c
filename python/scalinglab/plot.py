"""scalinglab.plot: a sweep's table drawn with matplotlib, in the style of the lab's gnuplot figures.

    >>> import scalinglab as sl
    >>> table = sl.run({...}, out="/tmp/run", columns="all")   # "all": the m_sem columns of the bands
    >>> fig = sl.plot(table, x="d", y="error", series="T", log="xy")
    >>> fig = sl.plot("/tmp/run")            # a results directory: its [plot] table gives the defaults

matplotlib is imported when a figure is drawn, never by `import scalinglab`. See docs/python.md.
"""

# Each step of a figure lives in a module of its own: the data (_plot_data), its values and where=
# (_plot_values, _plot_where), the curves (_plot_curves), theory and references (_plot_theory), the
# drawing (_plot_draw), the legend and notes (_plot_legend) and the look (_plot_style). Their names
# are re-exported here, where scalinglab.plot_fit and callers have always found them.
import csv  # noqa: F401 (these modules were names of scalinglab.plot before the split: kept)
import io  # noqa: F401
import math  # noqa: F401
import numbers  # noqa: F401
import os
import re  # noqa: F401
import textwrap
import warnings  # noqa: F401

import numpy as np

from . import _scalinglab as _core  # noqa: F401
from ._plot_reference import reference_curve, references as _references  # noqa: F401
from ._plot_text import (label_text as _label_text, plain as _plain, series_number as _series_number,  # noqa: F401
                         user_text as _user_text)
from ._plot_style import (AXES_SIZE, BAND_ALPHA, BAND_ALPHA_MANY, BAND_FLOOR, GUIDE_STYLES, GUIDES,  # noqa: F401
                          LEGEND_BELOW, LINE_WIDTH, MARKER_SIZE, MAX_MARKERS, NOTE_COLOUR, PALETTE, THEORY_WIDTH,
                          THIN_WIDTH, _log_labels, _style, band_alpha)
from ._plot_data import _column, _columns, _defaults, _from_directory, _read_csv, _read_text, _read_toml  # noqa: F401
from ._plot_values import (_available, _key, _missing, _names, _need, _number_text, _numeric,  # noqa: F401
                           _value_text)
from ._plot_where import _OPERATORS, _as_number, _as_text, _conditions, _select  # noqa: F401
from ._plot_curves import _Curve, _curves, _drawable  # noqa: F401
from ._plot_theory import _colours, _deterministic, _parts, _reference_lines  # noqa: F401
from ._plot_draw import _axes, _draw, _thin_bands
from ._plot_legend import _legend_and_notes, _notes, _plural, _relabel, _renderer  # noqa: F401

__all__ = ["plot", "update_legend", "PALETTE"]


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


def plot(data, x=None, y=None, series=None, *, log=None, band=None, where=None, theory=None, reference=None,
         legend=None, ax=None, title=None, xlabel=None, ylabel=None):
    """Draws a sweep's aggregated table with matplotlib and returns the Figure.

    data: the table of scalinglab.run (dict of numpy arrays), a pandas DataFrame with the same
    columns, or a results directory (its summary.csv; then x, y, series, log, band, where, title,
    xlabel, ylabel, dashed, legend and reference default to its sweep.toml's [plot] table, and
    keywords given here override; a sweep without a [plot] x and y, as a dict sweep of run() often
    is, draws its first grid axis holding numbers as x, its first scalar metric as y, and its next
    grid axis, or its parts when several, as series; further axes are held at their first value,
    as a note under the figure says, unless where is given).
    x: a column (a parameter, or a metric placed at its mean); y: a metric or a list of metrics;
    series: a column, one curve per value in table order ("part" for one curve per part).
    log: "x", "y", "xy" or a list of them (default: none). band: the shaded band around each mean,
    "std" or "sem" (one standard deviation or standard error over the runs) or "none"; default
    "sem", or the band of a results directory's [plot] table (whose default is also "sem"); each
    band in its curve's colour, lighter the more curves have one, and the legend says when a band is
    everywhere thinner than its curve's line. where: only rows meeting it, as {column: value}
    equalities, a comparison such as "d<=256" (operators <, <=, >, >=, ==, !=) or a list of those;
    as in sweeps, a condition on a parameter a part lacks keeps that part's rows.

    Theory is drawn dashed, without band, in the colour of its simulation: the rows of a part
    whose measure is deterministic (a results directory's [[part]] tables say which measure each
    part runs; a table's part counts when it is named after a deterministic measure), and any
    part or metric named in `theory` (a name or a list; a directory's [plot] dashed metrics too).
    A theory curve takes the colour of the first other curve of the same metric (any metric for
    a theory metric) and the same value of a series other than `part`; otherwise the next colour.
    A simulation with a theory in its colour is drawn thin with its markers, the theory on top.

    title, xlabel, ylabel (and a directory's sweep title, and the texts of legend=) are shown as
    written, a $ being a dollar sign, with powers raised as superscripts: 10^4, 10^-3, x^-a, N^alpha,
    x^(1-a). A [plot] table's labels are gnuplot markup, read as the lab's gnuplot figures read them.

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
    import matplotlib  # noqa: F401 (first, as before the split: without matplotlib nothing else is read)

    columns, sweep = _columns(data)
    spec = sweep.get("plot", {}) if isinstance(sweep.get("plot"), dict) else {}
    if spec.get("kind", "lines") != "lines" and (x is None or y is None):
        raise ValueError(f"plot: the directory's [plot] is of kind {spec['kind']!r}, drawn from series metrics that "
                         "summary.csv does not hold (see the directory's plot.png); give x= and y= for a line plot")

    # Defaults: the directory's [plot], then this function's.
    default_note = None
    x = x if x is not None else spec.get("x")
    y = y if y is not None else spec.get("y")
    series = series if series is not None else spec.get("series")
    where = where if where is not None else spec.get("where")
    if (x is None or y is None) and isinstance(data, (str, os.PathLike)):
        # A sweep without a [plot] x and y (a dict sweep, most often): its first grid axis against its first metric.
        x, default_y, series, fixed = _defaults(columns, sweep, x, series)
        y = y if y is not None else default_y
        if where is None and fixed:  # further axes: their first value, said under the figure
            where = fixed
            held = ", ".join(f"{_plain(k)} = {_plain(_value_text(v))}" for k, v in fixed.items())
            default_note = f"drawn at {held} (the sweep varies {'them' if len(fixed) > 1 else 'it'} too: see where=)"
    log = log if log is not None else spec.get("log", ())
    band = band if band is not None else spec.get("band", "sem") if spec else "sem"  # a [plot] as its plot.png
    # Text given here and the sweep's title are shown as written with powers raised (10^4, x^-a);
    # a [plot] table's labels are gnuplot markup, read as the lab's gnuplot figures read them.
    title = (_user_text(textwrap.fill(str(title), 70)) if title is not None else
             textwrap.fill(_label_text(spec["title"]), 70) if "title" in spec else
             _user_text(textwrap.fill(str(sweep["title"]), 70)) if "title" in sweep else None)
    xlabel = _user_text(xlabel) if xlabel is not None else _label_text(spec.get("xlabel"))
    ylabel = _user_text(ylabel) if ylabel is not None else _label_text(spec.get("ylabel"))
    references = _references(reference if reference is not None else spec.get("reference"))
    legend = legend if legend is not None else spec.get("legend", {})
    if not isinstance(legend, dict):
        raise TypeError(f"plot: legend must be a dict {{label: text}}, not {type(legend).__name__}")

    if x is None or y is None:
        why = " (the sweep varies no parameter holding numbers)" if x is None and sweep else ""
        raise ValueError(f"plot: give x= (a parameter or metric) and y= (a metric or a list of metrics){why}; "
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
    labels, parts_present, theory_parts, theory_metrics = _parts(columns, sweep, spec, keep, theory, metrics)
    curves = _curves(columns, keep, metrics, series, labels, parts_present, theory_metrics, theory_parts)
    xs_all = columns[x].astype(np.float64)
    kept_curves, drops = _drawable(curves, columns, x, xs_all, logs)
    _relabel(kept_curves, legend)
    plain = _colours(kept_curves, series, theory_metrics, theory_parts)
    drawn = [c for c in kept_curves if len(c.rows)]
    ref_lines = _reference_lines(references, drawn, plain, columns, keep, x, xs_all, series, logs)

    # A simulation with a theory in its colour is drawn thin with its markers, the theory on top of
    # it: a dashed line over a thick solid one of the same colour would vanish where they agree.
    theory_colours = {c.colour for c in drawn if c.theory} | {line[2] for line in ref_lines}
    for c in plain:
        c.thin = c.colour in theory_colours

    fig, ax, own_figure = _axes(ax, logs)
    handles, texts, band_entry, band_cut, bands = _draw(ax, drawn, ref_lines, columns, xs_all, band, logs)
    ax.autoscale_view()
    _style(ax, logs)
    _log_labels(ax, logs)
    band_entry = _thin_bands(ax, bands, texts, band_entry)  # at the final limits
    ax.set_xlabel(xlabel if xlabel is not None else _plain(x))
    ax.set_ylabel(ylabel if ylabel is not None else ", ".join(map(_plain, metrics)))
    if title:
        ax.set_title(title, fontsize="medium")

    notes = _notes(data, drops, band_cut, drawn, kept_curves, columns, band)
    if default_note:
        notes.insert(0, default_note)
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
