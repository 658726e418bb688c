"""Reference lines of the lab's figures drawn with matplotlib (scalinglab.plot): theory given as a
formula of x and the table's parameters, evaluated by the lab's own expression evaluator (the one
of [plot] reference in sweep files), or as a Python function of x."""

import numpy as np

from ._plot_text import formula_text, label_text, plain

REFERENCE_POINTS = 200    # a reference is evaluated at this many x between the plotted extremes


class Reference:
    def __init__(self, label, where, expr=None, fn=None):
        self.label, self.where, self.expr, self.fn = label, where, expr, fn


def references(reference):
    """[plot] reference (or the keyword) as a list of Reference: a formula, a table
    {expr, label, where}, a function of x, a table {fn, label, where}, or a list of those."""
    if reference is None:
        return []
    items = reference if isinstance(reference, (list, tuple)) else [reference]
    refs = []
    for item in items:
        if isinstance(item, str):
            refs.append(Reference(formula_text(item), None, expr=item))
            continue
        if callable(item):
            name = getattr(item, "__name__", "")
            if not name or name == "<lambda>":
                raise ValueError("plot: reference: a function needs a legend label: give "
                                 "{'fn': f, 'label': 'text'}")
            refs.append(Reference(plain(name), None, fn=item))
            continue
        if not isinstance(item, dict):
            raise TypeError(f"plot: reference: expected a formula, a function or a dict "
                            f"{{expr or fn, label, where}}, not {type(item).__name__}")
        unknown = set(item) - {"expr", "fn", "label", "where"}
        if unknown:
            raise ValueError(f"plot: reference: unknown key {sorted(unknown)[0]!r} (keys: expr or fn, label, where)")
        expr, fn = item.get("expr"), item.get("fn")
        if (expr is None) == (fn is None):
            raise ValueError("plot: reference: give either expr= (a formula) or fn= (a function of x)")
        if expr is not None and not isinstance(expr, str):
            raise TypeError(f"plot: reference: expr must be a formula (text), not {type(expr).__name__}")
        if fn is not None and not callable(fn):
            raise TypeError(f"plot: reference: fn must be a function of x, not {type(fn).__name__}")
        label = item.get("label")
        if label is None or (expr is not None and label == expr):  # a bare formula: powers raised
            if expr is None:
                raise ValueError("plot: reference: a function needs a legend label: add 'label'")
            text = formula_text(expr)
        else:
            text = label_text(label)  # enhanced markup, as the lab's figures read it
        refs.append(Reference(text, item.get("where"), expr=expr, fn=fn))
    return refs


def reference_curve(ref, row, x, logx, logy, lo, hi):
    """(xs, ys) of a reference between the plotted extremes lo and hi of x. Its other variables
    come from `row` ({name: number} of the first row matching its where, as in the lab's figures);
    formulas are evaluated by the lab's own expression evaluator."""
    xs = np.geomspace(lo, hi, REFERENCE_POINTS) if logx else np.linspace(lo, hi, REFERENCE_POINTS)
    if ref.fn is not None:
        ys = np.asarray(ref.fn(xs.copy()), dtype=np.float64)
        if ys.shape != xs.shape:
            raise ValueError(f"plot: reference {ref.label!r}: the function returned {ys.shape} values "
                             f"for {xs.shape} x values")
    else:
        from . import _scalinglab as core

        names = core.expression_variables(ref.expr)
        variables = {v: xs.tolist() if v == x else [row[v]] for v in names if v == x or v in row}
        missing = [v for v in names if v not in variables]
        if missing:
            raise ValueError(f"plot: reference {ref.expr!r}: {missing[0]!r} is neither x ({x!r}) nor a number of "
                             f"the row it reads ({', '.join(row)})")
        ys = np.asarray(core.expression_values(ref.expr, variables, len(xs)), dtype=np.float64)
    ok = np.isfinite(ys) & (ys > 0 if logy else True)
    return xs[ok], ys[ok]
