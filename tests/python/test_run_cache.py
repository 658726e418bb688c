"""The task cache from Python and the command line: an edited dict sweep computes only its new tasks
and its records equal a run from scratch; two runs sharing a cache at once lose nothing; an entry
that does not parse is refused and recomputed; `scalinglab cache stats|prune`; Ctrl-C's message."""
import glob
import json
import os
import subprocess

import numpy as np
import pytest

import scalinglab as sl
from scalinglab import _run

CLI = os.environ.get("SCALINGLAB_CLI", "scalinglab")
SWEEP = {
    "measure": "memory.error",
    "runs": 10,
    "seed": 7,
    "params": {"N": 50, "T": 200, "scheme": "q0"},
    "grid": {"d": [8, 16, 32]},
}


def records(folder):
    """{(key, run): (metrics, series)} of a results folder, and how many are marked reused."""
    out, reused = {}, 0
    for line in open(os.path.join(folder, "results.jsonl")):
        r = json.loads(line)
        out[(r["key"], r["run"])] = (r["metrics"], r["series"])
        reused += r.get("reused", False)
    return out, reused


def entries(cache):
    return sorted(glob.glob(os.path.join(cache, "??", "*.json")))


def test_ten_more_runs_compute_only_the_new_tasks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = sl.run(SWEEP, progress=False)
    assert (first.attrs["tasks_run"], first.attrs["tasks_reused"]) == (30, 0)
    more = sl.run({**SWEEP, "runs": 20}, progress=False)  # a new dict: a folder of its own
    assert more.attrs["out"] != first.attrs["out"]
    assert (more.attrs["tasks_run"], more.attrs["tasks_reused"]) == (30, 30)
    assert more.attrs["cache"] == os.path.join("results", ".cache")
    scratch = sl.run({**SWEEP, "runs": 20}, out="scratch", cache=False, progress=False)
    assert scratch.attrs["tasks_run"] == 60
    got, reused = records(more.attrs["out"])
    want, _ = records("scratch")
    assert reused == 30 and got == want
    for column in more:
        assert np.array_equal(more[column], scratch[column]), column
    assert len(entries("results/.cache")) == 60


def test_two_runs_sharing_a_cache_lose_nothing(tmp_path):
    # About 0.4 s of tasks each (10 ms a task), started together: their stores and reads interleave.
    heavier = {**SWEEP, "runs": 20, "params": {"N": 2000, "T": 20000, "scheme": "q0"}, "grid": {"d": [256, 1024]}}
    sweep = tmp_path / "shared.toml"
    sweep.write_text(sl.sweep_toml(heavier))
    cache = tmp_path / "cache"
    runs = [subprocess.Popen([CLI, "run", str(sweep), "--out", str(tmp_path / name), "--cache", str(cache),
                              "--threads", "1", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for name in ("a", "b")]
    for p in runs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    a, _ = records(tmp_path / "a")
    b, _ = records(tmp_path / "b")
    assert len(a) == len(b) == 40 and a == b
    assert len(entries(cache)) == 40
    # Every entry parses and a third run takes all of its tasks from them.
    third = sl.run(heavier, out=tmp_path / "c", cache=cache, progress=False)
    assert (third.attrs["tasks_run"], third.attrs["tasks_reused"]) == (0, 40)


def test_an_entry_that_does_not_parse_is_refused_and_recomputed(tmp_path, capfd):
    cache = tmp_path / "cache"
    sweep = {**SWEEP, "runs": 2}
    sl.run(sweep, out=tmp_path / "a", cache=cache, progress=False)
    victim = entries(cache)[3]
    whole = open(victim).read()
    with open(victim, "w") as f:
        f.write(whole[: len(whole) // 2])  # a write cut short
    again = sl.run(sweep, out=tmp_path / "b", cache=cache, progress=False)
    assert (again.attrs["tasks_run"], again.attrs["tasks_reused"]) == (1, 5)
    assert "1 task cache entry refused" in capfd.readouterr().err
    def entry(text):
        record = json.loads(text)
        del record["seconds"]  # the time it took this time
        return record
    assert entry(open(victim).read()) == entry(whole)  # replaced by the recomputed record, bit for bit
    assert records(tmp_path / "a")[0] == records(tmp_path / "b")[0]


def test_cache_stats_and_prune(tmp_path):
    cache = tmp_path / "cache"
    sl.run({**SWEEP, "runs": 1}, out=tmp_path / "a", cache=cache, progress=False)
    stats = subprocess.run([CLI, "cache", "stats", str(cache)], capture_output=True, text=True)
    assert stats.returncode == 0, stats.stderr
    assert "3 entries" in stats.stdout and "memory.error" in stats.stdout and "(this one)" in stats.stdout
    as_json = json.loads(subprocess.run([CLI, "cache", "stats", "--json", str(cache)], capture_output=True,
                                        text=True).stdout)
    assert as_json["entries"] == as_json["this_build"] == 3 and as_json["by_measure"] == {"memory.error": 3}
    assert as_json == {**sl.cache_stats(cache), "build": as_json["build"]}
    kept = subprocess.run([CLI, "cache", "prune", str(cache)], capture_output=True, text=True)
    assert kept.returncode == 0 and "removed 0 entries" in kept.stdout, kept.stdout + kept.stderr
    gone = subprocess.run([CLI, "cache", "prune", "--all", "--json", str(cache)], capture_output=True, text=True)
    assert json.loads(gone.stdout)["removed"] == 3
    assert sl.cache_stats(cache)["entries"] == 0
    missing = subprocess.run([CLI, "cache", "stats", str(tmp_path / "none")], capture_output=True, text=True)
    assert missing.returncode == 2 and "no such folder" in missing.stderr


def test_ctrl_c_says_rerunning_the_cell_is_enough_and_closes_the_bar(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    closed = []

    class Bar(_run._Bar):
        def __call__(self, done, total, seconds_left):
            super().__call__(done, total, seconds_left)
            if done == 2:
                raise KeyboardInterrupt

        def close(self, stopped=False):
            closed.append(stopped)
            super().close(stopped)

    monkeypatch.setattr(_run, "_Bar", Bar)
    with pytest.raises(KeyboardInterrupt, match="re-running the cell is enough") as e:
        sl.run({**SWEEP, "runs": 2}, threads=1)
    assert "resume=True" not in str(e.value)
    assert closed == [True]
    done = sl.run({**SWEEP, "runs": 2}, threads=1, progress=False)  # the same call finishes it
    assert done.attrs["tasks_skipped"] >= 2 and done.attrs["tasks_skipped"] + done.attrs["tasks_run"] == 6


def test_an_edited_python_world_never_reuses_its_older_records(tmp_path):
    world = tmp_path / "scaled.py"
    source = ('import scalinglab as sl\n\n\n@sl.register_measure("cachetoy.draw", summary="a draw times SCALE",\n'
              '                     params=[sl.param("x", "real", 1.0, "scale", min=0, max=10)],\n'
              '                     metrics={"value": "x times a draw"})\n'
              'def draw(p, rng):\n    return {"value": SCALE * p.x * rng.random()}\n')
    world.write_text("SCALE = 1\n" + source)
    sweep = tmp_path / "s.toml"
    sweep.write_text('measure = "cachetoy.draw"\nruns = 2\n[grid]\nx = [1, 2]\n')

    def run(out):
        done = subprocess.run([CLI, "--world", str(world), "run", str(sweep), "--out", str(tmp_path / out)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "(4 run now, 0 done before)" in run("a")
    assert "(0 run now, 0 done before, 4 reused from" in run("b")  # the same file: reused
    world.write_text("SCALE = 2\n" + source)  # an edited world: its records are computed again
    assert "(4 run now, 0 done before)" in run("c")
    a, c = records(tmp_path / "a")[0], records(tmp_path / "c")[0]
    assert all(c[k][0]["value"] == 2 * a[k][0]["value"] for k in a)
