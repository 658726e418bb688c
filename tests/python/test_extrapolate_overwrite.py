"""extrapolate(out=...) into a folder that holds a benchmark's results: an error naming that folder
unless resume=True or overwrite=True, which deletes only what a benchmark writes. The folder is laid
out as a benchmark leaves it, and the core's benchmark is replaced by a stand-in: what is tested is
what happens before it runs."""
import importlib
import json
import os
import re

import pytest

import scalinglab as sl

extrapolation = importlib.import_module("scalinglab._extrapolation")

RUN = {"results.jsonl": "{}\n", "summary.csv": "n,loss\n", "sweep.toml": "", "checks.json": "[]\n",
       "run.json": json.dumps({"measures": "teacher.bound", "name": "small", "profile": "", "sets": []})}


def benchmark_folder(out):
    """A finished benchmark of world `w`: tables and figures, design a's replication, a truth slice."""
    for path in ("w/a/rep-1", "w/a/rep-2", "w/truth-10x"):
        os.makedirs(out / path)
        for name, text in RUN.items():
            (out / path / name).write_text(text)
    for name in ("leaderboard.json", "leaderboard.csv", "predictions.csv", "coverage.gp", "coverage.png"):
        (out / name).write_text("x\n")


@pytest.fixture
def core(monkeypatch):
    """The benchmark as a stand-in that records what the folder held when it was called."""
    calls = []

    class Core:
        @staticmethod
        def extrapolate_benchmark(files, out, *args):
            calls.append(sorted(os.listdir(out)) if os.path.isdir(out) else None)
            return {"out_dir": out, "rows": [], "methods": []}

    monkeypatch.setattr(extrapolation, "_core", Core)
    return calls


def test_a_used_folder_is_named_and_overwrite_deletes_only_the_benchmarks(tmp_path, core):
    world, out = tmp_path / "w.toml", tmp_path / "bench"
    world.write_text("")
    benchmark_folder(out)
    with pytest.raises(ValueError, match=f"extrapolate: {re.escape(str(out))} already holds .*resume=True.*"
                                         "overwrite=True.*another out="):
        sl.extrapolate(world, out=out, frame=False)
    with pytest.raises(ValueError, match="resume=True keeps the results that overwrite=True deletes"):
        sl.extrapolate(world, out=out, overwrite=True, resume=True, frame=False)
    # Anything a benchmark does not write: refused, nothing deleted.
    (out / "notes.txt").write_text("mine")
    (out / "w" / "a" / "rep-1" / "mine.csv").write_text("mine")
    with pytest.raises(ValueError, match="holds notes.txt, w/a/rep-1/mine.csv, which an extrapolation benchmark "
                                         "does not write.*nothing was deleted"):
        sl.extrapolate(world, out=out, overwrite=True, frame=False)
    assert (out / "leaderboard.json").exists() and (out / "w" / "a" / "rep-2" / "results.jsonl").exists()
    os.remove(out / "notes.txt")
    os.remove(out / "w" / "a" / "rep-1" / "mine.csv")
    # Links are never followed: one inside is refused, one given as out too.
    os.symlink(tmp_path, out / "w" / "elsewhere")
    with pytest.raises(ValueError, match="holds w/elsewhere, which"):
        sl.extrapolate(world, out=out, overwrite=True, frame=False)
    os.remove(out / "w" / "elsewhere")
    os.symlink(out, tmp_path / "link")
    with pytest.raises(ValueError, match="is a symbolic link"):
        sl.extrapolate(world, out=tmp_path / "link", overwrite=True, frame=False)
    assert core == []  # no benchmark ran so far
    # The benchmark's own outputs: deleted before it runs again, the folder kept.
    result = sl.extrapolate(world, out=out, overwrite=True, frame=False)
    assert core == [[]] and result.out == str(out)
    # resume=True keeps what is there.
    benchmark_folder(tmp_path / "again")
    sl.extrapolate(world, out=tmp_path / "again", resume=True, frame=False)
    assert core[-1] == ["coverage.gp", "coverage.png", "leaderboard.csv", "leaderboard.json", "predictions.csv", "w"]
