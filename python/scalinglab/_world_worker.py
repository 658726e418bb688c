"""A worker process of a Python world: imports the world's file, declares its measures, then answers
one JSON line per request on its standard input and output (the lab's socket).

Started by the lab (scalinglab/external/python_world): ``python3 -m scalinglab._world_worker FILE``.
The world's own prints go to stderr; Ctrl-C is the lab's to handle (the worker ignores SIGINT and
ends when the lab closes the socket).
"""

import importlib.util
import json
import math
import os
import signal
import sys
import traceback


def _number(v):
    if isinstance(v, bool):
        return float(v)
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


class Params(dict):
    """A task's parameters: p["n"] or p.n."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"no parameter {name!r}; this measure has {', '.join(self) or 'none'}") from None


def _params(decl, given):
    out = Params()
    types = {p["name"]: p["type"] for p in decl["params"]}
    for k, v in given.items():
        t = types.get(k)
        if t in ("int", "count", "real") and isinstance(v, str):
            v = float(v)  # "inf", "-inf"
        elif t == "real":
            v = float(v)
        out[k] = v
    return out


def _metrics_of(name, decl, result):
    if not isinstance(result, dict):
        raise TypeError(f"{name} returned {type(result).__name__}, expected a dict {{metric: value}}")
    series = {m["name"] for m in decl["metrics"] if m.get("series")}
    scalars, lists = {}, {}
    for k, v in result.items():
        if not isinstance(k, str):
            raise TypeError(f"{name} returned a metric named {k!r}, not a string")
        if k in series:
            lists[k] = [_number(x) for x in v]
        else:
            try:
                scalars[k] = _number(v)
            except (TypeError, ValueError):
                raise TypeError(f"{name}: metric {k!r} is {type(v).__name__}, not a number") from None
    return scalars, lists


def _failure(e):
    return {"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}


def _serve(proto_in, proto_out, worlds):
    import numpy as np

    def send(obj):
        proto_out.write(json.dumps(obj, allow_nan=False) + "\n")
        proto_out.flush()

    for line in proto_in:
        try:
            req = json.loads(line)
            fn, decl, extras = worlds._DECLARED[req["measure"]]
            p = _params(decl, req.get("params", {}))
            op = req.get("op")
            if op == "run":
                rng = np.random.default_rng(int(req["seed"]))
                scalars, series = _metrics_of(decl["name"], decl, fn(p, rng))
                answer = {"ok": True, "scalars": scalars, "series": series}
            elif op == "check":
                try:
                    extras["check"](p)
                    answer = {"ok": True}
                except (ValueError, TypeError) as e:
                    answer = {"ok": False, "error": str(e)}
            elif op in ("work", "memory"):
                answer = {"ok": True, "value": _number(extras[op](p))}
            else:
                answer = {"ok": False, "error": f"unknown request {op!r}"}
        except Exception as e:  # the task's failure, with its traceback; the worker serves the next
            answer = _failure(e)
        try:
            send(answer)
        except ValueError as e:
            send(_failure(e))


def main():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The protocol keeps the original descriptors; the world's prints go to stderr, its reads to nothing.
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    path = sys.argv[1] if len(sys.argv) > 1 else ""
    try:
        from scalinglab import worlds
        stem = "".join(c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0])
        name = "scalinglab_world_" + stem
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{path} is not an importable Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))  # the world's sibling modules
        spec.loader.exec_module(module)
        decls = []
        for fn, decl, extras in worlds._DECLARED.values():
            decls.append({"declaration": decl, "check": "check" in extras, "work_fn": "work" in extras,
                          "memory_fn": "memory" in extras})
        proto_out.write(json.dumps({"declarations": decls}, allow_nan=False) + "\n")
        proto_out.flush()
    except BaseException as e:  # the import failed: the traceback to stderr, one line to the lab
        traceback.print_exc()
        try:
            proto_out.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
            proto_out.flush()
        except Exception:
            pass
        return 1
    _serve(proto_in, proto_out, worlds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
