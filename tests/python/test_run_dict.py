"""Sweeps from Python: a dict or keywords run exactly as the same sweep written to a file; progress
reaches a callback; Ctrl-C and a failing callback stop the run with everything recorded, and
resume=True finishes it; messages name Python arguments."""
import os
import signal
import tomllib

import numpy as np
import pytest

import scalinglab as sl

SWEEP = {
    "measure": "memory.error",
    "runs": 3,
    "seed": 11,
    "params": {"N": 50, "T": float("inf"), "scheme": "q0"},
    "grid": {"d": [8, 16, 32, 64]},
    "check": [{"claim": "errors are probabilities", "below": {"x": "d", "y": "error", "bound": "1"}}],
}
TOTAL = 4 * 3


def same(a, b):
    assert list(a) == list(b)
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def test_toml_text_round_trips_through_a_toml_parser():
    parsed = tomllib.loads(sl.sweep_toml({**SWEEP, "title": 'quotes " and \\ back'}))
    assert parsed["params"] == {"N": 50, "T": "inf", "scheme": "q0"}
    assert parsed["grid"] == {"d": [8, 16, 32, 64]} and parsed["title"] == 'quotes " and \\ back'
    assert parsed["check"][0]["below"] == {"x": "d", "y": "error", "bound": "1"}
    with pytest.raises(TypeError, match="params.N"):
        sl.sweep_toml({"params": {"N": object()}})


def test_a_dict_and_keywords_run_as_the_file_does(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(sl.sweep_toml(SWEEP))
    from_file, checks = sl.run_sweep(path, out=tmp_path / "file", progress=False)
    from_dict, checks_dict = sl.run_sweep(SWEEP, out=tmp_path / "dict", progress=False)
    from_keywords = sl.run(out=tmp_path / "kw", progress=False, **SWEEP)
    same(from_file, from_dict)
    same(from_file, from_keywords)
    assert checks == checks_dict and checks[0]["passed"]
    with pytest.raises(TypeError, match="not both"):
        sl.run(SWEEP, runs=2)


def test_default_folder_is_named_after_the_sweep(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sl.run(SWEEP, name="mine", progress=False)
    assert (tmp_path / "results" / "mine" / "summary.csv").is_file()
    with pytest.raises(ValueError, match="resume=True"):  # the folder holds results: named in Python terms
        sl.run(SWEEP, name="mine", progress=False)
    with pytest.raises(ValueError, match="plain name"):
        sl.run(SWEEP, name="../elsewhere", progress=False)


def test_progress_reaches_a_callable(tmp_path):
    seen = []
    sl.run(SWEEP, out=tmp_path / "p", threads=2, progress=lambda d, t, eta: seen.append((d, t, eta)))
    assert [d for d, _, _ in seen] == list(range(1, TOTAL + 1))
    assert all(t == TOTAL for _, t, _ in seen)


def test_a_failing_callback_stops_the_run_and_resume_finishes_it(tmp_path):
    def stop_at_five(done, total, eta):
        if done == 5:
            raise OverflowError("enough")

    with pytest.raises(OverflowError, match="enough"):
        sl.run(SWEEP, out=tmp_path / "f", threads=1, progress=stop_at_five)
    assert len(sl.load_results(tmp_path / "f")) == 5
    reference = sl.run(SWEEP, out=tmp_path / "ref", progress=False)
    same(sl.run(SWEEP, out=tmp_path / "f", resume=True, progress=False), reference)


def test_ctrl_c_stops_the_run_leaving_a_resumable_folder(tmp_path):
    def interrupt_at_three(done, total, eta):
        if done == 3:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C would

    with pytest.raises(KeyboardInterrupt, match="resume=True"):
        sl.run(SWEEP, out=tmp_path / "c", threads=1, progress=interrupt_at_three)
    done = len(sl.load_results(tmp_path / "c"))
    assert 3 <= done < TOTAL
    reference = sl.run(SWEEP, out=tmp_path / "ref", progress=False)
    same(sl.run(SWEEP, out=tmp_path / "c", resume=True, progress=False), reference)
    assert len(sl.load_results(tmp_path / "c")) == TOTAL


def test_load_results_keeps_the_declared_order(tmp_path):
    sl.run(SWEEP, out=tmp_path / "o", progress=False)
    d = sl.describe("memory.error")
    declared = [p["name"] for p in d["params"]]
    metrics = [m["name"] for m in d["metrics"] if not m["series"]]
    task = sl.load_results(tmp_path / "o")[0]
    assert list(task["params"]) == [p for p in declared if p in task["params"]]
    assert list(task["metrics"]) == [m for m in metrics if m in task["metrics"]]
    frame = sl.load_results(tmp_path / "o", frame=True)
    assert list(frame.columns[3:3 + len(task["params"])]) == list(task["params"])
