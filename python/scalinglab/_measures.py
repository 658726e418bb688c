"""Measures from Python: their names and declarations, and one evaluated at one point
(`scalinglab eval MEASURE k=v ... --json`, with Python's numbers)."""

from . import _scalinglab as _core
from ._values import _as_given, _metric, _param, _text


def measures():
    """Names of all measures, e.g. ["memory.error", ...]."""
    return list(_core.measures())


def describe(name):
    """The declaration of measure `name` as a dict: name, summary, details, params, metrics.

    Each parameter is {"name", "type", "default", "doc", "expression"} plus "choices" for
    choices and "min"/"max" when the range is bounded."""
    return _core.describe(name)


def describe_text(name):
    """Help text of measure `name` (what `scalinglab describe NAME` prints)."""
    return _core.describe_text(name)


def measure(name):
    """Measure `name` as a Python function of its parameters, documented from its declaration.

        >>> error = scalinglab.measure("memory.error")
        >>> help(error)                      # parameters, ranges, metrics
        >>> error(N=100, d=64, runs=10)      # same as scalinglab.eval("memory.error", ...)
    """
    text = describe_text(name)  # raises ValueError for an unknown measure

    def f(*, threads=0, **params):
        return eval(name, threads=threads, **params)

    f.__name__ = f.__qualname__ = name.replace(".", "_")
    f.__doc__ = text + "\nKeyword `threads` sets the worker threads (0: all cores).\n"
    return f


def eval(measure, /, *, threads=0, **params):  # noqa: A001 (the CLI's verb)
    """Evaluates `measure` at one point; returns {"measure", "params", "metrics"}.

    Keywords are the measure's parameters (see describe_text(measure)), given as Python values
    (numbers, float("inf"), strings, booleans) or as the text of the command line ("d/8", "inf").
    `runs=R` averages R runs. A scalar metric of a stochastic measure is an Estimate, the dict
    {"mean", "std", "sem", "count"} whatever R is (std and sem 0 for one run); one of a deterministic
    measure (theory, describe(measure)["deterministic"]) is an Exact, a float. Both read alike:
    m.mean, m.std, m.sem, m.count, m["mean"], and float(m) is the mean (std, sem 0 and count 1 for
    an Exact). Series are lists (mean per index). `seed` keys the random streams, so a result is
    reproducible. `threads` is not a parameter: the number of worker threads (0: all cores).

    This is `scalinglab eval MEASURE k=v ... --json`, with inf as float("inf"), null as nan, and
    params and metrics in declaration order. Raises ValueError naming a bad parameter.
    """
    try:
        out = _core.evaluate(measure, {k: _text(v) for k, v in params.items()}, int(threads))
    except ValueError as e:
        raise ValueError(_as_given(str(e), params)) from None
    decl = describe(measure)
    order = [p["name"] for p in decl["params"]]
    metric_order = [m["name"] for m in decl["metrics"]]
    got = out["metrics"]
    return {
        "measure": out["measure"],
        "params": {k: _param(out["params"][k]) for k in order if k in out["params"]},
        "metrics": {k: _metric(got[k]) for k in metric_order + sorted(set(got) - set(metric_order))
                    if k in got},
    }
