"""scalinglab.eval / describe / measures: same numbers as the command line, validation, seeds."""
import json
import math
import os
import pathlib
import subprocess

import numpy as np
import pytest

import scalinglab as sl

POINT = dict(N=50, M=5, alpha=2.0, d=16, T=1000, scheme="q0", runs=4, seed=3)


def cli():
    """The command line binary: $SCALINGLAB_CLI (set by ctest), else next to build/python."""
    path = os.environ.get("SCALINGLAB_CLI") or str(
        pathlib.Path(sl.__file__).resolve().parents[2] / "scalinglab")
    assert os.path.exists(path), f"scalinglab CLI not found at {path}; set SCALINGLAB_CLI"
    return path


def cli_eval(measure, **params):
    args = [cli(), "eval", measure, *(f"{k}={v}" for k, v in params.items()), "--json", "--threads", "2"]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def number(v):
    return math.nan if v is None else float(v) if v in ("inf", "-inf") else v


def test_measures_include_memory_error():
    names = sl.measures()
    assert "memory.error" in names
    assert len(set(names)) == len(names)


def test_describe_lists_declared_params_and_metrics():
    d = sl.describe("memory.error")
    assert d["name"] == "memory.error"
    params = {p["name"]: p for p in d["params"]}
    for name in ["N", "M", "alpha", "d", "T", "scheme", "rho", "P", "f", "runs", "seed"]:
        assert name in params, name
    assert params["T"]["type"] == "count" and params["T"]["default"] == "inf"
    assert set(params["scheme"]["choices"]) == {"q0", "rho", "threshold"}
    assert params["N"]["min"] == 1
    assert "error" in [m["name"] for m in d["metrics"]]


def test_describe_text_is_the_measure_docstring():
    text = sl.describe_text("memory.error")
    assert text.startswith("memory.error:") and "scheme" in text and "Metrics:" in text
    f = sl.measure("memory.error")
    assert f.__doc__.startswith(text)
    assert f(**POINT) == sl.eval("memory.error", **POINT)


def test_eval_matches_cli_json():
    cases = [("memory.error", POINT),
             ("memory.error", dict(POINT, T="inf", runs=1, scheme="threshold", P="d/4", rho=0.37)),
             ("memory.matrix", dict(N=20, d=8, T=100, runs=2, seed=1)),  # with a series
             ("factor.complexity", dict(input_factors="2,2,3,5", output_factors="4x2", parents=2, seed=2)),
             ("factor.train", dict(input_factors="2x4", output_factors="4x2", d=8, epochs=50, evals=4, runs=2,
                                   seed=1))]
    for measure, point in cases:
        ours = sl.eval(measure, threads=2, **point)
        theirs = cli_eval(measure, **point)
        assert ours["measure"] == theirs["measure"] == measure
        assert ours["params"] == {k: number(v) for k, v in theirs["params"].items()}
        assert set(ours["metrics"]) == set(theirs["metrics"])
        for name, v in theirs["metrics"].items():
            if isinstance(v, dict):
                expect = {k: number(x) for k, x in v.items()}
            elif isinstance(v, list):
                expect = [number(x) for x in v]
            else:
                expect = number(v)
            assert ours["metrics"][name] == expect, name


def test_eval_result_shape():
    out = sl.eval("memory.error", **POINT)
    assert list(out["params"])[:3] == ["N", "M", "alpha"]  # declaration order
    assert out["params"]["T"] == 1000 and out["params"]["scheme"] == "q0"
    err = out["metrics"]["error"]
    assert list(err) == ["mean", "std", "sem", "count"] and err["count"] == 4
    assert 0 <= err["mean"] <= 1
    single = sl.eval("memory.error", **dict(POINT, runs=1, T=float("inf")))
    assert single["params"]["T"] == math.inf
    one = single["metrics"]["error"]  # the same shape whatever runs is
    assert list(one) == ["mean", "std", "sem", "count"] and one["count"] == 1 and one["std"] == 0
    for runs in (1, 3):  # a deterministic measure gives numbers whatever runs is
        theory = sl.eval("memory.infinite_memory_error", alpha=2.0, N=100, T=1000, runs=runs)
        assert isinstance(theory["metrics"]["error"], float)


def test_python_values_are_converted_like_text():
    base = sl.eval("memory.error", **dict(POINT, T="inf"))
    same = sl.eval("memory.error", **dict(POINT, T=float("inf"), N=np.int64(50), alpha=np.float64(2), d=16.0))
    assert same == base


def test_value_text_rules():
    assert [sl._text(v) for v in (True, np.bool_(False), 3, np.int64(7), 0.1, 1e20, float("inf"), "d/8")] == \
        ["true", "false", "3", "7", "0.1", "1e+20", "inf", "d/8"]
    out = sl.eval("memory.error", **dict(POINT, runs=1, scheme="rho", rho=0.1 + 0.2))
    assert out["params"]["rho"] == 0.1 + 0.2  # floats cross as their shortest round-trip text


def test_seed_is_deterministic_and_seeds_differ():
    a = sl.eval("memory.error", **POINT)["metrics"]["error"]
    b = sl.eval("memory.error", **POINT)["metrics"]["error"]
    c = sl.eval("memory.error", **dict(POINT, seed=4))["metrics"]["error"]
    assert a == b
    assert a["mean"] != c["mean"]


def test_threads_do_not_change_results():
    one = sl.eval("memory.error", threads=1, **dict(POINT, runs=8))
    two = sl.eval("memory.error", threads=2, **dict(POINT, runs=8))
    assert one["metrics"]["error"]["mean"] == pytest.approx(two["metrics"]["error"]["mean"], rel=1e-12)


@pytest.mark.parametrize("kwargs, name", [
    (dict(foo=1), "foo"),            # unknown keyword
    (dict(N="many"), "N"),           # not a number
    (dict(N=1.5), "N"),              # not an integer
    (dict(N=0), "N"),                # out of range
    (dict(T=-3), "T"),               # out of range
    (dict(T=float("nan")), "T"),     # nan is never a value
    (dict(scheme="q9"), "scheme"),   # not a choice
    (dict(alpha=[1, 2]), "alpha"),   # not a number
])
def test_bad_parameters_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        sl.eval("memory.error", **kwargs)


def test_unknown_measure_raises_value_error():
    with pytest.raises(ValueError, match="memory.error"):  # the message lists the known measures
        sl.eval("memory.nope")
    with pytest.raises(ValueError):
        sl.describe("memory.nope")


def test_skills_measures_take_lists_and_formulas():
    # Figure 4's multimodal task at 1e22 FLOPs sits on its first plateau, 0.4 (the first mode's weight).
    out = sl.eval("skills.emergence", C=1e22, pi=[0.2, 0.6, 0.95], weights=(0.4, 0.4, 0.2), eta="exp(7*l/L)")
    assert out["params"]["pi"] == "0.2,0.6,0.95"
    assert abs(out["metrics"]["accuracy"] - 0.4) < 0.01
    assert len(out["metrics"]["gamma"]) == 101
    thr = sl.eval("skills.threshold", ensemble="regular", l=3, r=6)["metrics"]
    assert abs(thr["epsilon_star"] - 0.4294398) < 1e-7 and abs(thr["alpha"] - 0.56036) < 1e-5
    with pytest.raises(ValueError, match="eta"):
        sl.eval("skills.emergence", eta="exp(7*k)")  # reads an unknown variable


def test_simulated_and_theory_metrics_read_alike():
    err = sl.eval("memory.error", **POINT)["metrics"]["error"]
    assert isinstance(err, sl.Estimate) and isinstance(err, sl.Metric) and isinstance(err, dict)
    assert (err.mean, err.std, err.sem, err.count) == (err["mean"], err["std"], err["sem"], err["count"])
    assert err == {k: err[k] for k in ("mean", "std", "sem", "count")}  # still the plain dict it was
    assert float(err) == err["mean"] and f"{err:.6f}" == f"{err['mean']:.6f}"
    assert err.std > 0 and err.sem == pytest.approx(err.std / math.sqrt(4))
    assert repr(err) == repr(dict(err))
    theory = sl.eval("memory.infinite_memory_error", alpha=2.0, N=100, T=1000)["metrics"]["error"]
    assert isinstance(theory, sl.Exact) and isinstance(theory, sl.Metric) and isinstance(theory, float)
    value = float(theory)
    assert 0 < value < 1 and theory == value and repr(theory) == repr(value)
    assert (theory.mean, theory.std, theory.sem, theory.count) == (value, 0.0, 0.0, 1)
    assert theory["mean"] == value and theory["sem"] == 0.0
    with pytest.raises(KeyError):
        theory["median"]
    # Code written for one reads the other: a mean and its error bar whatever the measure.
    for m in (err, theory):
        assert m.mean - 2 * m.sem <= float(m) <= m.mean + 2 * m.sem
    assert json.loads(json.dumps({"e": err, "t": theory})) == {"e": dict(err), "t": value}
    # A series stays a list.
    assert isinstance(sl.eval("memory.matrix", N=20, d=8, T=100, runs=2, seed=1)["metrics"]["matrix"], list)
