"""Worlds of your own: a measure written in Python, or a C++ plugin, used as the built-in ones are.

A Python measure is a function of its parameters and a random generator that returns its metrics,
with a declaration::

    import scalinglab as sl

    @sl.register_measure("toy.error", summary="error of a toy learner after n samples",
                         params=[sl.param("n", "int", 100, "samples seen", min=1, max=1e9, same_world=True),
                                 sl.param("alpha", "real", 2.0, "Zipf exponent", min=1.05, max=8)],
                         metrics={"error": "expected test error"},
                         work="n")
    def toy_error(p, rng):          # p.n, p.alpha; rng: numpy Generator seeded by the lab's stream
        return {"error": ...}

The lab checks the declaration as it checks its own measures', then runs the function in worker
processes of its own (each imports the measure's file; tasks run in parallel whatever the GIL), so
the function must live in a .py file, and code that should not run on import sits under
``if __name__ == "__main__":`` (as with multiprocessing). From then on the measure is usable
everywhere a built-in one is: eval, run (dicts and TOML), plot, checks and counterfactuals, fit,
extrapolate; and from the shell with ``--world FILE.py``. docs/worlds.md walks through it.
"""

import inspect
import os
import sys

from . import _scalinglab as _core

_TYPES = ("int", "real", "count", "choice", "bool")
# Every measure declared in this process: name -> (function, declaration, extras). In a worker, this
# is what it serves; elsewhere, the record of what was declared (the lab's registry holds the rest).
_DECLARED = {}


def _in_worker():
    return os.environ.get("SCALINGLAB_WORLD_WORKER") == "1"


def param(name, type, default, doc, *, min=None, max=None, choices=None, same_world=False,  # noqa: A002
          expression=False):
    """One parameter of a measure.

    type: "int", "real", "count" (a positive integer or inf), "choice" (one of `choices`) or "bool".
    min, max: the inclusive range the lab enforces before any task runs (numbers; inf allowed).
    same_world: the parameter is the learner's, not the world's (a width, a step, a training
    length): every value of it sees the same drawn world for a given run, so curves against it
    compare learners on one world. expression: the value may be a formula of other parameters
    ("d/8").
    """
    if type not in _TYPES:
        raise ValueError(f"parameter {name!r}: type {type!r} is not one of {', '.join(_TYPES)}")
    d = {"name": name, "type": type, "default": _default_text(default), "doc": doc,
         "same_world": bool(same_world), "expression": bool(expression)}
    if min is not None:
        d["min"] = _bound(min)
    if max is not None:
        d["max"] = _bound(max)
    if choices is not None:
        d["choices"] = [str(c) for c in choices]
    return d


def _default_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v != v:
        raise ValueError("a default cannot be NaN")
    return repr(v) if isinstance(v, float) else str(v)


def _bound(v):
    v = float(v)
    if v != v:
        raise ValueError("a range bound cannot be NaN")
    return v if abs(v) != float("inf") else ("inf" if v > 0 else "-inf")


def _metrics(metrics):
    if isinstance(metrics, dict):
        return [{"name": k, "doc": v if isinstance(v, str) else v.get("doc", ""),
                 "series": False if isinstance(v, str) else bool(v.get("series", False))} for k, v in metrics.items()]
    out = []
    for m in metrics:
        out.append({"name": m, "doc": "", "series": False} if isinstance(m, str) else dict(m))
    return out


def _source_file(fn):
    try:
        f = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except TypeError:
        f = None
    if not f or not os.path.isfile(f) or not f.endswith(".py"):
        raise ValueError(
            f"{getattr(fn, '__name__', fn)!r} is not defined in a .py file: the lab runs a measure in worker processes "
            "that import its file, so define it in a module (my_world.py) and import that, or load the file with "
            "sl.load_world('my_world.py')")
    return os.path.abspath(f)


def register_measure(name, fn=None, *, params=(), metrics, summary="", details="", deterministic=False, work=None,
                     memory=None, check=None, theory=None, theory_metrics=None):
    """Declares `fn(p, rng) -> {metric: value or list}` as the measure `name` ("world.name").

    As a decorator, without `fn`: ``@sl.register_measure("world.name", params=..., metrics=...)``.
    p holds the parameters (p.n or p["n"]: int, float, str for a choice, bool; inf as float), rng is
    a numpy Generator seeded from the lab's stream of the task (the same whatever the thread,
    process or rank). Series metrics (``metrics={"curve": {"doc": "...", "series": True}}``) are
    returned as lists.

    work, memory: the operations and peak bytes of one run, as a formula of the parameters ("n*k")
    or a function of p (for --max-work, --max-memory and the ETA). check(p): raise ValueError with
    one sentence to refuse a parameter set that no range expresses. theory(p) -> {metric: value}: a
    deterministic measure `name + "_theory"` with the same parameters, drawn dashed in its
    simulation's colour when a sweep has it as a part; it returns the metrics named in
    `theory_metrics` (default: all of them).
    Returns `fn`.
    """
    if fn is None:
        return lambda f: register_measure(name, f, params=params, metrics=metrics, summary=summary, details=details,
                                          deterministic=deterministic, work=work, memory=memory, check=check,
                                          theory=theory, theory_metrics=theory_metrics)
    if not callable(fn):
        raise TypeError(f"measure {name!r}: fn must be a function fn(p, rng)")
    decl = {"name": name, "summary": summary or (inspect.getdoc(fn) or "").split("\n")[0], "details": details,
            "deterministic": bool(deterministic), "params": list(params), "metrics": _metrics(metrics)}
    extras = {}
    for key, value in (("work", work), ("memory", memory)):
        if isinstance(value, str):
            decl[key] = value
        elif callable(value):
            extras[key] = value
        elif value is not None:
            raise TypeError(f"measure {name!r}: {key} must be a formula (text) or a function of p")
    if check is not None:
        if not callable(check):
            raise TypeError(f"measure {name!r}: check must be a function of p")
        extras["check"] = check
    _DECLARED[name] = (fn, decl, extras)
    if theory is not None:
        if not callable(theory):
            raise TypeError(f"measure {name!r}: theory must be a function of p")
        tm = decl["metrics"] if theory_metrics is None else [m for m in decl["metrics"] if m["name"] in theory_metrics]
        unknown = set(theory_metrics or ()) - {m["name"] for m in decl["metrics"]}
        if unknown:
            raise ValueError(f"measure {name!r}: theory_metrics names {sorted(unknown)}, not metrics of the measure")
        tdecl = dict(decl, name=name + "_theory", deterministic=True, metrics=tm,
                     summary="theory of " + name + (": " + decl["summary"] if decl["summary"] else ""))
        tdecl.pop("work", None)
        tdecl.pop("memory", None)
        _DECLARED[name + "_theory"] = (lambda p, rng, _t=theory: _t(p), tdecl, {})
    if not _in_worker():
        load_world(_source_file(fn))
        missing = [n for n in ([name] + ([name + "_theory"] if theory is not None else [])) if n not in _core.measures()]
        if missing:
            raise ValueError(f"{', '.join(missing)}: declared here but not when its file is imported on its own "
                             "(declare measures at the top level of the file)")
    return fn


def load_world(path):
    """Loads a Python world file (its measures run in worker processes); returns the measures' names."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return _core.load_python_world(os.fspath(path), sys.executable, root)


def load_plugin(path):
    """Loads a C++ world plugin (a shared library built against scalinglab/world_plugin.hpp)."""
    return _core.load_plugin(os.fspath(path))


def loaded():
    """(Python world files, plugin libraries) loaded in this process, in loading order."""
    return _core.loaded_worlds()


def include_dir():
    """The folder holding scalinglab/world_plugin.hpp, for a plugin's -I (None when not shipped here)."""
    here = os.path.dirname(os.path.abspath(__file__))
    # Installed: shipped in the package; build tree (build/python/scalinglab): the sources' include/.
    for d in (os.path.join(here, "include"), os.path.join(here, "..", "..", "..", "include")):
        if os.path.isfile(os.path.join(d, "scalinglab", "world_plugin.hpp")):
            return os.path.abspath(d)
    return None
