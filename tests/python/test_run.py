"""scalinglab.run / run_sweep / load_results on a tiny sweep written to a temporary directory: the
table's columns (main view, all, without pandas), folders already holding results."""
import math

import numpy as np
import pandas as pd
import pytest

import scalinglab as sl

SWEEP = """
measure = "memory.error"
runs = 3
seed = 11

[params]
N = 50
T = "inf"
scheme = "q0"

[grid]
d = [8, 32]

[[check]]
claim = "errors are probabilities"
below = { x = "d", y = "error", bound = "1" }
"""


@pytest.fixture
def sweep(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(SWEEP)
    return path


def test_run_returns_one_array_per_column(sweep, tmp_path):
    table = sl.run(sweep, out=tmp_path / "out", threads=2, columns="all", frame=False)
    params = [p["name"] for p in sl.describe("memory.error")["params"] if p["name"] not in ("runs", "seed")]
    metrics = [m["name"] for m in sl.describe("memory.error")["metrics"] if not m["series"]]
    expect = params + [f"{m}{s}" for m in metrics for s in ("", "_std", "_sem")] + ["count"]
    assert list(table) == expect
    assert all(isinstance(v, np.ndarray) and len(v) == 2 for v in table.values())
    assert table["d"].tolist() == [8, 32] and table["d"].dtype == np.int64
    assert table["T"].dtype == np.float64 and np.all(np.isinf(table["T"]))
    assert table["scheme"].dtype == object and table["scheme"].tolist() == ["q0", "q0"]
    assert table["count"].tolist() == [3, 3]
    assert np.all((table["error"] >= 0) & (table["error"] <= 1))


def test_run_means_agree_with_eval_at_the_same_seed(sweep, tmp_path):
    table = sl.run(sweep, out=tmp_path / "out", columns="all")
    for i, d in enumerate(table["d"]):
        point = sl.eval("memory.error", N=50, d=d, T="inf", scheme="q0", runs=3, seed=11)
        err = point["metrics"]["error"]
        assert table["error"][i] == pytest.approx(err["mean"], rel=1e-12, abs=1e-15)
        assert table["error_std"][i] == pytest.approx(err["std"], rel=1e-9, abs=1e-15)
    assert table["error"][0] != table["error"][1]


def test_table_loads_into_pandas_and_matches_summary_csv(sweep, tmp_path):
    table = sl.run(sweep, out=tmp_path / "out", columns="all", frame=False)
    df = sl.to_pandas(table)
    assert df.shape == (2, len(table))
    assert df.loc[df.d == 32, "error"].item() == table["error"][1]
    csv = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert list(csv.columns) == list(df.columns)
    np.testing.assert_allclose(csv["error"], df["error"], rtol=1e-15)
    assert np.all(np.isinf(csv["T"]))


def test_the_default_view_holds_the_swept_parameters_and_the_means(sweep, tmp_path):
    two_axes = tmp_path / "two.toml"
    two_axes.write_text(SWEEP.replace("d = [8, 32]", "d = [8, 32]\nM = [2, 5]"))
    df = sl.run(two_axes, out=tmp_path / "out")
    assert isinstance(df, pd.DataFrame)
    metrics = [m["name"] for m in sl.describe("memory.error")["metrics"] if not m["series"]]
    assert list(df.columns) == ["d", "M", *metrics, "count"]  # grid order, the metrics' means, the runs
    assert df.attrs["out"] == str(tmp_path / "out") and df.attrs["tasks_run"] == 12
    every = sl.run(two_axes, out=tmp_path / "out", resume=True, columns="all")
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert list(every.columns) == list(summary.columns) and len(every.columns) > 10
    assert {"N", "T", "scheme", "error_std", "error_sem"} <= set(every.columns)
    assert every.attrs["tasks_run"] == 0 and every.attrs["tasks_skipped"] == 12
    pd.testing.assert_frame_equal(df, every[df.columns])
    picked = sl.run(two_axes, out=tmp_path / "out", resume=True, columns=["error_sem", "d"])
    assert list(picked.columns) == ["error_sem", "d"]
    # Without pandas (or with frame=False): the same columns as a dict of numpy arrays.
    plain = sl.run(two_axes, out=tmp_path / "out", resume=True, frame=False)
    assert isinstance(plain, dict) and list(plain) == list(df.columns)
    assert all(isinstance(v, np.ndarray) for v in plain.values())
    np.testing.assert_array_equal(plain["error"], df["error"])
    assert list(sl.to_pandas(plain).columns) == list(df.columns) and sl.to_pandas(df) is df
    for bad in ["everything", ["nope"], 3]:
        with pytest.raises(ValueError, match="columns="):
            sl.run(two_axes, out=tmp_path / "out", resume=True, columns=bad)


def test_count_is_left_out_when_every_mean_is_of_one_run(tmp_path):
    path = tmp_path / "theory.toml"
    path.write_text('measure = "memory.infinite_memory_error"\n[params]\nN = 100\n[grid]\nT = [10, 100, 1000]\n')
    assert list(sl.run(path, out=tmp_path / "out").columns) == ["T", "error", "asymptote"]


def test_table_without_pandas_is_a_dict_of_arrays(sweep, tmp_path, monkeypatch):
    monkeypatch.setattr(sl, "_has_pandas", lambda: False)
    table = sl.run(sweep, out=tmp_path / "out")
    assert isinstance(table, dict) and list(table)[:2] == ["d", "error"] and list(table)[-1] == "count"
    assert table["d"].dtype == np.int64 and table["count"].tolist() == [3, 3]


def test_run_sweep_returns_the_checks(sweep, tmp_path):
    table, checks = sl.run_sweep(sweep, out=tmp_path / "out")
    assert len(checks) == 1
    assert checks[0]["claim"] == "errors are probabilities" and checks[0]["kind"] == "below"
    assert checks[0]["passed"] is True


def test_existing_results_need_resume_and_set_overrides(sweep, tmp_path):
    out = tmp_path / "out"
    sl.run(sweep, out=out)
    with pytest.raises(ValueError, match=r"resume=True.*overwrite=True.*out="):
        sl.run(sweep, out=out)
    assert sl.run(sweep, out=out, resume=True, set={"runs": 5})["count"].tolist() == [5, 5]
    other = sl.run(sweep, out=tmp_path / "n100", set=["N=100"], columns="all")
    assert other["N"].tolist() == [100, 100]


def test_bad_sweeps_raise_value_error(sweep, tmp_path):
    with pytest.raises(ValueError):
        sl.run(tmp_path / "missing.toml", out=tmp_path / "a")
    bad = tmp_path / "bad.toml"
    bad.write_text(SWEEP.replace("N = 50", "N = 0"))
    with pytest.raises(ValueError, match=r"\bN\b"):
        sl.run(bad, out=tmp_path / "b")
    with pytest.raises(ValueError, match="nope"):
        sl.run(sweep, out=tmp_path / "c", set={"nope": 1})


def test_load_results_gives_every_task(sweep, tmp_path):
    out = tmp_path / "out"
    table = sl.run(sweep, out=out)
    tasks = sl.load_results(out)
    assert len(tasks) == 6
    assert sorted((t["point"], t["run"]) for t in tasks) == [(p, r) for p in (0, 1) for r in range(3)]
    assert all(t["params"]["T"] == math.inf for t in tasks)
    df = sl.load_results(out / "results.jsonl", frame=True)
    assert len(df) == 6 and {"point", "run", "d", "error", "seconds"} <= set(df.columns)
    means = df.groupby("d")["error"].mean()
    np.testing.assert_allclose(means.loc[[8, 32]].to_numpy(), table["error"], rtol=1e-12)


PARTS = """
runs = 2
seed = 5

[params]
N = 40
T = "inf"

[grid]
d = [8, 16]

[[part]]
name = "q0"
measure = "memory.error"
params = { scheme = "q0" }

[[part]]
name = "sgd"
measure = "memory.train"
params = { batch = "inf", steps = 20, lr = 10 }
"""


def test_run_with_parts_gives_one_table_with_a_part_column(tmp_path):
    path = tmp_path / "parts.toml"
    path.write_text(PARTS)
    frame = sl.run(path, out=tmp_path / "out", threads=2, columns="all")
    assert list(frame.columns[:2]) == ["part", "N"]
    assert frame["part"].tolist() == ["q0", "q0", "sgd", "sgd"]
    # A parameter of one part only is NaN (numbers) or "" (choices) on the other part's rows.
    assert frame.loc[frame["part"] == "q0", "lr"].isna().all()
    assert (frame.loc[frame["part"] == "sgd", "lr"] == 10).all()
    assert frame.loc[frame["part"] == "sgd", "scheme"].tolist() == ["", ""]
    assert frame["error"].between(0, 1).all()
    on_disk = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert on_disk["part"].tolist() == frame["part"].tolist()
    np.testing.assert_allclose(on_disk["error"], frame["error"], rtol=1e-12)
    main = sl.run(path, out=tmp_path / "out", resume=True)  # the parts, the grid axis, the metrics' means
    assert list(main.columns[:3]) == ["part", "d", "error"] and main.columns[-1] == "count"
    assert not any(c.endswith(("_std", "_sem")) for c in main.columns) and "lr" not in main.columns


def test_limits_refuse_before_running_and_can_be_raised(tmp_path):
    before = sl.limits()
    assert before["max_points"] > 0 and before["max_tasks"] > 0 and before["max_memory"] > 0
    path = tmp_path / "big.toml"
    path.write_text('measure = "memory.infinite_memory_error"\n[grid]\nT = [1, 2, 3]\n')
    try:
        sl.set_limits(max_points=2)
        with pytest.raises(ValueError, match="grid points, more than the limit"):
            sl.run(path, out=tmp_path / "out")
        assert not (tmp_path / "out").exists()
        with pytest.raises(ValueError, match="--max-tasks"):
            sl.eval("memory.infinite_memory_error", runs=10**9)
        sl.set_limits(max_points=3)
        assert len(sl.run(path, out=tmp_path / "out")["T"]) == 3
    finally:
        sl.set_limits(**before)
    assert sl.limits() == before


def test_negative_threads_and_unknown_profiles_are_refused(sweep, tmp_path):
    with pytest.raises(ValueError, match="threads"):
        sl.run(sweep, out=tmp_path / "a", threads=-1)
    with pytest.raises(ValueError, match="threads"):
        sl.eval("memory.error", threads=-2)
    with pytest.raises(ValueError, match="unknown profile 'quik'"):
        sl.run(sweep, out=tmp_path / "b", profile="quik")


FACTOR = """
measure = "factor.train"
runs = 1
seed = 5
[params]
input_factors = "2x4"
output_factors = "4x2"
d = 8
epochs = 200
evals = 5
[grid]
lr = [0.01, 0.03]
"""


def test_checkpoint_interval_is_a_duration_like_the_command_line(tmp_path):
    path = tmp_path / "f.toml"
    path.write_text(FACTOR)
    ref = sl.run(path, out=tmp_path / "ref", threads=1)
    # Saving every task's state often (or never) changes no number, and leaves no checkpoint behind.
    for k, every in enumerate(["1m", 0, 0.001]):
        out = tmp_path / f"c{k}"
        table = sl.run(path, out=out, threads=1, checkpoint_every=every)
        np.testing.assert_array_equal(table["loss"], ref["loss"])
        assert not any((out / "checkpoints").glob("*")) if (out / "checkpoints").exists() else True
    for bad in ["soon", -1, float("inf"), True, [10]]:
        with pytest.raises(ValueError, match="checkpoint_every"):
            sl.run(path, out=tmp_path / "bad", threads=1, checkpoint_every=bad)
        assert not (tmp_path / "bad").exists()
