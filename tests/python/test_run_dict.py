"""Sweeps from Python: a dict or keywords run exactly as the same sweep written to a file; an
unnamed dict finds its own results again and a changed one gets its own folder; overwrite=True runs
again; progress reaches a callback or a plain line; Ctrl-C and a failing callback stop the run with
everything recorded, and resume=True finishes it; messages name Python arguments and the dict's keys."""
import os
import re
import signal
import sys
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


def counter():
    calls = []
    return calls, lambda done, total, eta: calls.append(done)


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
    # A named sweep's folder that holds results: refused, with the ways on named in Python terms.
    with pytest.raises(ValueError, match=r"already holds results: pass resume=True .*overwrite=True .*out="):
        sl.run(SWEEP, name="mine", progress=False)
    with pytest.raises(ValueError, match="plain name"):
        sl.run(SWEEP, name="../elsewhere", progress=False)


def test_the_same_dict_reuses_its_folder_and_a_changed_one_gets_its_own(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls, progress = counter()
    first = sl.run(SWEEP, progress=progress)
    assert len(calls) == TOTAL
    [folder] = [f for f in (tmp_path / "results").iterdir() if f.name != ".cache"]
    assert re.fullmatch(r"sweep-[0-9a-f]{10}", folder.name) and first.attrs["out"] == f"results/{folder.name}"
    calls.clear()
    again = sl.run(SWEEP, progress=progress)  # the cell run again: its results, no task run
    assert calls == [] and again.attrs["tasks_run"] == 0 and again.attrs["tasks_skipped"] == TOTAL
    same(first, again)
    assert len(sl.load_results(folder)) == TOTAL
    keywords = sl.run(progress=progress, **SWEEP)  # the same keys as keywords: the same sweep
    assert calls == [] and keywords.attrs["out"] == first.attrs["out"]
    # A changed dict, profile or set is another sweep, in a folder of its own.
    fewer = sl.run({**SWEEP, "runs": 2}, progress=progress)  # its tasks are the first's: from the task cache
    assert calls == [] and fewer.attrs["tasks_reused"] == 4 * 2 and fewer["count"].tolist() == [2] * 4
    other = sl.run(SWEEP, set={"N": 60}, progress=False)
    assert other.attrs["tasks_run"] == TOTAL
    assert len({first.attrs["out"], fewer.attrs["out"], other.attrs["out"]}) == 3
    assert len([f for f in (tmp_path / "results").iterdir() if f.name != ".cache"]) == 3
    assert len(sl.load_results(folder)) == TOTAL  # nothing mixed into the first folder


def test_an_interrupted_dict_sweep_is_finished_by_running_it_again(tmp_path):
    def stop_at_five(done, total, eta):
        if done == 5:
            raise OverflowError("enough")

    with pytest.raises(OverflowError):
        sl.run(SWEEP, out=tmp_path / "i", threads=1, progress=stop_at_five)
    calls, progress = counter()
    table = sl.run(SWEEP, out=tmp_path / "i", threads=1, progress=progress)  # no resume=True needed
    assert calls == list(range(6, TOTAL + 1)) and table["count"].tolist() == [3] * 4


def test_overwrite_runs_again_and_a_changed_dict_is_refused_without_it(tmp_path):
    out = tmp_path / "o"
    first = sl.run(SWEEP, out=out, progress=False)
    changed = {**SWEEP, "seed": 12}
    with pytest.raises(ValueError, match=r"holds the outputs of sweep .*choose another out=, or pass overwrite=True"):
        sl.run(changed, out=out, progress=False)
    assert len(sl.load_results(out)) == TOTAL  # refused: untouched
    calls, progress = counter()
    table = sl.run(changed, out=out, overwrite=True, progress=progress)
    assert len(calls) == TOTAL and table.attrs["tasks_run"] == TOTAL
    assert sorted({t["params"]["seed"] for t in sl.load_results(out)}) == [12]
    assert not np.array_equal(table["error"], first["error"])
    calls.clear()
    again = sl.run(changed, out=out, overwrite=True, cache=False, progress=progress)  # recomputed, to the same numbers
    assert len(calls) == TOTAL and len(sl.load_results(out)) == TOTAL
    same(table, again)
    sl.run(SWEEP, name="mine", out=tmp_path / "n", progress=False)
    calls.clear()
    sl.run(SWEEP, name="mine", out=tmp_path / "n", overwrite=True, cache=False, progress=progress)
    assert len(calls) == TOTAL
    calls.clear()  # with the task cache, overwrite=True takes the records back from it
    cached = sl.run(SWEEP, name="mine", out=tmp_path / "n", overwrite=True, progress=progress)
    assert calls == [] and cached.attrs["tasks_reused"] == TOTAL
    with pytest.raises(ValueError, match="give one of them"):
        sl.run(SWEEP, out=out, overwrite=True, resume=True)


def test_without_tqdm_progress_is_a_plain_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `from tqdm.auto import tqdm` raises ImportError
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    sl.run(SWEEP, out=tmp_path / "p", threads=1)
    err = capsys.readouterr().err
    name = re.search(r"(sweep-[0-9a-f]{10}): ", err).group(1)
    assert f"\r{name}: {TOTAL}/{TOTAL} tasks, ETA " in err and err.endswith("\n") and err.count("\n") == 1
    sl.run(SWEEP, out=tmp_path / "p")  # nothing to run: says so, where
    assert capsys.readouterr().err == (f"{name}: all {TOTAL} tasks already done in {tmp_path / 'p'}; nothing to "
                                       f"run (overwrite=True, cache=False runs them again)\n")
    sl.run(SWEEP, out=tmp_path / "p", progress=False)
    sl.run({**SWEEP, "runs": 1}, out=tmp_path / "q", progress=False)
    assert capsys.readouterr().err == ""


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

    with pytest.raises(KeyboardInterrupt, match="re-running the cell is enough"):
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


PARTS = {
    "runs": 1,
    "params": {"N": 50, "T": float("inf")},
    "grid": {"d": [8, 16]},
    "part": [{"name": "q0", "measure": "memory.error", "params": {"scheme": "q0"}},
             {"name": "rho", "measure": "memory.error", "params": {"scheme": "rho", "rho": "x"}}],
}


@pytest.mark.parametrize("sweep, key", [
    ({**SWEEP, "params": {**SWEEP["params"], "N": "many"}}, "params.N"),          # wrong type in params
    ({**SWEEP, "params": {**SWEEP["params"], "nope": 3}}, "params.nope"),         # unknown parameter
    ({**SWEEP, "grid": {"d": [8, "x", 32]}}, "grid.d[1]"),                        # wrong type in grid
    ({**SWEEP, "grid": {"d": [8, 16, -32]}}, "grid.d[2]"),                        # out of range in grid
    ({**SWEEP, "grid": {"d": "logspace(1, 2)"}}, "grid.d"),                       # a bad generator
    ({**SWEEP, "runs": "three"}, "runs"),                                         # wrong type, top level
    ({**SWEEP, "bogus": 1}, "bogus"),                                             # unknown key
    ({**SWEEP, "measure": "memory.errr"}, "measure"),                             # unknown measure
    ({**SWEEP, "check": [{"claim": "c", "below": {"x": "d", "y": "eror", "bound": "1"}}]}, "check[0].below.y"),
    ({**SWEEP, "check": [{"claim": "c", "slope": {"x": "d", "y": "error", "expect": "a", "tol": 1}}]},
     "check[0].slope.expect"),                                                    # a bad check
    ({**SWEEP, "check": [{"claim": "c", "nope": {"x": "d"}}]}, "check[0].nope"),   # an unknown kind of check
    ({**SWEEP, "plot": {"x": "zz", "y": "error"}}, "plot.x"),
    ({**SWEEP, "profile": {"quick": {"runs": "x"}}}, "profile.quick.runs"),
    (PARTS, "part[1].params.rho"),                                                # a part's parameter
])
def test_errors_of_a_dict_sweep_name_its_key(sweep, key, tmp_path):
    with pytest.raises(ValueError) as raised:
        sl.run(sweep, out=tmp_path / "e", progress=False, profile="quick" if "profile" in sweep else "")
    message = str(raised.value)
    assert message.startswith(f"{key}: "), message
    assert ".toml" not in message and not re.search(r":\d+:\d+", message)  # no file the user never wrote
    assert not (tmp_path / "e").exists()


def test_a_line_and_column_of_the_text_map_back_to_the_key():
    text, spans = sl._sweep_toml.toml_text({"runs": 2, "grid": {"d": [8, 16], "s": [{"a": 1, "b": "x"}]},
                                            "check": [{"claim": "c"}, {"slope": {"x": "d", "tol": 0.1}}]})
    lines = text.splitlines()

    def key(line_text, needle):
        n = lines.index(line_text)
        return sl._sweep_toml.key_at(spans, n + 1, line_text.index(needle) + 1)

    assert key("runs = 2", "2") == "runs" and key("[grid]", "g") == "grid"
    assert key("d = [8, 16]", "16") == "grid.d[1]" and key("d = [8, 16]", "d") == "grid.d"
    assert key('s = [{a = 1, b = "x"}]', '"x"') == "grid.s[0].b"
    assert key('s = [{a = 1, b = "x"}]', "{") == "grid.s[0]"
    assert lines.count("[[check]]") == 2
    second = len(lines) - 1 - lines[::-1].index("[[check]]")
    assert sl._sweep_toml.key_at(spans, second + 1, 1) == "check[1]"
    assert key('slope = {x = "d", tol = 0.1}', "0.1") == "check[1].slope.tol"


def test_the_notebook_widget_only_with_ipywidgets_7_or_later(monkeypatch):
    import types

    import tqdm
    import tqdm.auto

    from scalinglab._run_progress import _tqdm
    for version, expected in (("6.0.0", tqdm.tqdm), ("8.1.2", tqdm.auto.tqdm)):
        monkeypatch.setitem(sys.modules, "ipywidgets", types.SimpleNamespace(__version__=version))
        assert _tqdm() is expected, version
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # not installed: the text bar, no IProgress warning
    assert _tqdm() is tqdm.tqdm
