"""Worlds of one's own in Python: declared with sl.register_measure, run by worker processes, usable in
eval, run, plot, checks and fit like a built-in measure; C++ plugins through sl.load_plugin; the
shell's `python3 -m scalinglab run --world`, killed and resumed, gives the records of one clean run."""
import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import scalinglab as sl

ROOT = pathlib.Path(__file__).resolve().parents[2]
HUTTER = ROOT / "examples" / "worlds" / "hutter.py"
HUTTER_SWEEP = ROOT / "examples" / "worlds" / "hutter.toml"
RAISING = ROOT / "tests" / "external" / "worlds" / "raising_world.py"


def cli():
    path = os.environ.get("SCALINGLAB_CLI") or str(pathlib.Path(sl.__file__).resolve().parents[2] / "scalinglab")
    assert os.path.exists(path), f"scalinglab CLI not found at {path}; set SCALINGLAB_CLI"
    return path


def plugins():
    return pathlib.Path(cli()).resolve().parent / "test-plugins"


def records(folder):
    out = []
    for line in (pathlib.Path(folder) / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        r.pop("seconds", None)
        out.append(json.dumps(r, sort_keys=True))
    return sorted(out)


def test_a_loaded_world_is_a_measure_like_the_built_in_ones():
    names = sl.load_world(HUTTER)
    assert names == ["hutter.error", "hutter.error_theory"]
    assert "hutter.error" in sl.measures()
    d = sl.describe("hutter.error")
    assert [p["name"] for p in d["params"]] == ["n", "alpha", "law", "runs", "seed"]
    # eval gives the command line's numbers (the same seeds, the same worker code).
    r = sl.eval("hutter.error", n=500, alpha=2.0, runs=6, seed=4)
    args = [cli(), "--world", str(HUTTER), "eval", "hutter.error", "n=500", "alpha=2", "runs=6", "seed=4", "--json"]
    c = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert r["metrics"]["error"].mean == pytest.approx(c["metrics"]["error"]["mean"], rel=1e-15)
    # The declared ranges refuse before any work, with the built-in measures' sentence.
    with pytest.raises(ValueError, match="alpha"):
        sl.eval("hutter.error", alpha=1.0)


def test_run_plot_and_fit_a_python_world(tmp_path):
    sl.load_world(HUTTER)
    sweep = {"runs": 8, "seed": 2,
             "grid": {"n": [100, 1000, 10000, 100000]},
             "part": [{"name": "sim", "measure": "hutter.error"}, {"name": "theory", "measure": "hutter.error_theory"}],
             "plot": {"x": "n", "y": "error", "series": "part", "log": ["x", "y"]},
             "check": [{"claim": "beta = 1/2", "slope": {"x": "n", "y": "error", "where": {"part": "sim"},
                                                         "expect": -0.5, "tol": 0.06}}]}
    table, checks = sl.run_sweep(sweep, out=str(tmp_path / "h"), threads=2)[:2]
    assert all(c["passed"] for c in checks), checks
    assert (tmp_path / "h" / "plot.svg").exists()
    fig = sl.plot(str(tmp_path / "h"))
    assert fig.axes
    # A fit of the simulated curve on the run's table: the exponent of Hutter's law, 1 - 1/alpha.
    sim = table[table["part"] == "sim"]
    f = sl.fit({"n": list(sim["n"]), "error": list(sim["error"])}, law="power", x="n", loss="error", bootstrap=0,
               progress=False)
    assert f["a"] == pytest.approx(0.5, abs=0.03)


def test_declarations_are_checked_with_the_labs_messages(tmp_path):
    bad = tmp_path / "bad_world.py"
    bad.write_text(textwrap.dedent("""
        import scalinglab as sl
        sl.register_measure("bad.twice", lambda p, rng: {"y": 1.0},
                            params=[sl.param("x", "real", 1, "first"), sl.param("x", "real", 2, "second")],
                            metrics={"y": "a value"}, summary="declares x twice")
    """))
    with pytest.raises(ValueError, match="parameter 'x' is declared twice"):
        sl.load_world(bad)
    with pytest.raises(ValueError, match="type 'float' is not one of"):
        sl.param("x", "float", 1, "doc")
    # A function the workers cannot import (no file of its own) is refused, saying why.
    namespace = {}
    exec("def f(p, rng):\n    return {'y': 1.0}\n", namespace)
    with pytest.raises(ValueError, match="not defined in a .py file"):
        sl.register_measure("nofile.f", namespace["f"], metrics={"y": "a value"}, summary="no file")


def test_a_raise_fails_its_task_alone(tmp_path):
    sl.load_world(RAISING)
    with pytest.raises(RuntimeError, match="thirteen is unlucky"):
        sl.eval("pytoy.draw", x=13)
    with pytest.raises(ValueError, match="x > 50 with k > 5 is refused"):
        sl.eval("pytoy.draw", x=60, k=6)
    sweep = {"measure": "pytoy.draw", "grid": {"x": [1, 13, 2]}}
    with pytest.warns(RuntimeWarning, match="1 of 3 tasks failed"):
        sl.run_sweep(sweep, out=str(tmp_path / "r"))
    failures = [json.loads(l) for l in (tmp_path / "r" / "failures.jsonl").read_text().splitlines()]
    assert [f["params"]["x"] for f in failures] == [13]
    assert "Traceback" in failures[0]["traceback"]
    assert len((tmp_path / "r" / "results.jsonl").read_text().splitlines()) == 2


def test_a_plugin_loads_from_python():
    names = sl.load_plugin(plugins() / "libtoy_plugin.so")
    assert "toy.draw" in names
    a = sl.eval("toy.draw", scale=3, k=2, seed=9)
    b = sl.eval("toy.draw", scale=3, k=2, seed=9)
    assert a["metrics"]["value"] == b["metrics"]["value"]
    with pytest.raises(ValueError, match="interface version 999"):
        sl.load_plugin(plugins() / "libother_abi_plugin.so")


def test_the_shell_command_killed_and_resumed_gives_the_clean_runs_records(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(sl.__file__).resolve().parents[1]))
    base = [sys.executable, "-m", "scalinglab", "run", str(HUTTER_SWEEP), "--world", str(HUTTER), "--profile", "quick",
            "--quiet", "--no-cache"]  # every task computed: the resumed run's records against the clean run's
    clean = subprocess.run(base + ["--out", str(tmp_path / "clean"), "--threads", "1"], env=env, capture_output=True,
                           text=True, timeout=600)
    assert clean.returncode == 0, clean.stderr
    assert clean.stdout.count("PASS ") == 4, clean.stdout
    for f in ("summary.csv", "plot.svg", "checks.json"):
        assert (tmp_path / "clean" / f).exists()
    # Killed (SIGKILL: no chance to clean up) once a third of its tasks are recorded, then resumed with 4 workers.
    out = tmp_path / "killed"
    p = subprocess.Popen(base + ["--out", str(out), "--threads", "2"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None:
        if results.exists() and results.read_text().count("\n") >= 300:
            break
        time.sleep(0.05)
    p.kill()
    p.wait()
    done = results.read_text().count("\n")
    assert 0 < done < 1080, done
    resumed = subprocess.run(base + ["--out", str(out), "--threads", "4", "--resume"], env=env, capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert records(out) == records(tmp_path / "clean")


def test_the_extrapolation_benchmark_runs_on_a_python_world(tmp_path):
    world = ROOT / "tests" / "external" / "worlds"
    sl.load_world(world / "planted_law.py")
    result = sl.extrapolate(str(world / "planted_law.toml"), methods=["approach3"], out=str(tmp_path / "x"))
    rows = result.report["rows"]
    assert rows and all(r["method"] == "approach3" for r in rows)
    assert "planted_law" in (tmp_path / "x" / "leaderboard.md").read_text()
