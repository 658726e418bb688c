"""Theory in a figure of plot(): which curves are theory (the parts of a deterministic measure, the
names of theory=, a [plot] table's dashed metrics), the colour each takes from its simulation, and
the reference lines, pinned to a series' colour or drawn as guides."""

import warnings

import numpy as np

from ._plot_reference import reference_curve
from ._plot_style import GUIDE_STYLES, GUIDES, PALETTE, THEORY_WIDTH
from ._plot_values import _key, _missing, _names, _numeric
from ._plot_where import _conditions, _select


def _deterministic(measure):
    from . import describe

    try:
        return bool(describe(measure).get("deterministic", False))
    except (ValueError, RuntimeError):  # a measure this build does not know
        return False


def _parts(columns, sweep, spec, keep, theory, metrics):
    """(labels, parts_present, theory_parts, theory_metrics): the parts' legend labels, the parts
    of the rows kept in order, and the parts and metrics drawn as theory."""
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
    return labels, parts_present, theory_parts, theory_metrics


def _colours(kept_curves, series, theory_metrics, theory_parts):
    """Colours: simulations in order, then each theory in its simulation's colour or the next one.
    Returns the simulations (the curves that are not theory)."""
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
    return plain


def _reference_lines(references, drawn, plain, columns, keep, x, xs_all, series, logs):
    """The references as (xs, ys, colour, linestyle, width, label), between the plotted extremes of
    x: a reference whose where fixes the series is that curve's theory (its colour), others are
    guides (black, then grey)."""
    n = len(xs_all)
    ref_lines = []
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
                warnings.warn(f"plot: no row matches the where of reference {name!r}; curve skipped", stacklevel=3)
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
    return ref_lines
