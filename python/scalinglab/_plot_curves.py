"""The curves of a figure of plot(): one per (metric, part, series value), labelled as the lab's
figures word them (so that a [plot] legend fits both), each keeping the points it can show; the
points left out are counted by reason, for the note on the figure."""

import numbers

import numpy as np

from ._plot_text import plain as _plain, series_number as _series_number
from ._plot_values import _key, _missing, _value_text


class _Curve:
    def __init__(self, metric, part, value, label):
        self.metric, self.part, self.value, self.label = metric, part, value, label
        self.raw = label  # the label as the lab words it, before markup: the key of a legend map
        self.rows = []
        self.theory = False
        self.colour = None
        self.thin = False  # a simulation with a theory in its colour


def _curves(columns, keep, metrics, series, labels, parts_present, theory_metrics, theory_parts):
    """One curve per (metric, part, series value), in order of appearance: metrics outer, rows inner."""
    has_parts = "part" in columns
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
    return curves


def _drawable(curves, columns, x, xs_all, logs):
    """(curves, drops): the curves with the points they can show, sorted by x, and the points that
    cannot be drawn counted per reason ({"error = 0 (log y axis)": 3}), written on the figure."""
    drops = {}

    def drop(reason, count):  # reason: "error = 0 (log y axis)"
        if count:
            drops[reason] = drops.get(reason, 0) + count

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
    return kept_curves, drops
