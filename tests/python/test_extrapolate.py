"""scalinglab.extrapolate: the extrapolation benchmark from Python, with methods written in Python.

A tiny deterministic world (teacher.bound, one design, two horizons) keeps the whole file to a few
seconds; the memory world checks that fresh replications reach a custom method."""

import math

import numpy as np
import pandas as pd
import pytest

import scalinglab as sl

# teacher.bound's corollary (Jeon & Van Roy 2024): deterministic, the truth is the bound's minimum.
BOUND_WORLD = """measure = "teacher.bound"
seed = 1
[params]
d = 10
K = 100
[extrapolate]
size = "n"
data = "T"
N = "n*d"
D = "T/6"
loss = "corollary"
[benchmark]
budgets = [1e8, 1e10]
sizes = [30, 30000]
shift = 0.5
horizons = [10, 100]
designs = [{ name = "a", per_decade = 2, sizes = 9, runs = 1 }]
bootstrap = 0
truth_sizes = 41
truth_spread = 10
"""

# Associative memories on 1000 tokens: noisy, so replications differ.
MEMORY_WORLD = """measure = "memory.error"
seed = 3
[params]
N = 1000
M = 5
alpha = 2.0
scheme = "threshold"
P = "d/8"
[extrapolate]
size = "d"
data = "T"
N = "d^2"
D = "T"
loss = "error"
[benchmark]
budgets = [1e4, 1e5]
sizes = [4, 40]
shift = 0.5
horizons = [10]
replications = 3
designs = [{ name = "a", per_decade = 2, sizes = 5, runs = 1 }]
truth_sizes = 7
truth_runs = 8
bootstrap = 0
"""

LEADERBOARD_COLUMNS = ["world", "design", "method", "horizon", "replications", "failed", "N_err_median",
                       "L_err_median", "N_coverage", "L_coverage", "regret_median", "truth_N", "truth_L"]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    path = tmp_path_factory.mktemp("worlds") / "bound.toml"
    path.write_text(BOUND_WORLD)
    return path


@pytest.fixture(scope="module")
def baseline(world, tmp_path_factory):
    """One run with a built-in method: its truth feeds the oracle below."""
    return sl.extrapolate(world, methods=["approach2"], out=tmp_path_factory.mktemp("base") / "out")


def best_run_fit(table, budgets):
    """Approach 1 in a few lines: log N of each budget's lowest-loss run regressed on log C."""
    best = table.loc[table.groupby("budget")["loss"].idxmin()]
    a, b = np.polyfit(np.log(best["C"]), np.log(best["N"]), 1)
    la, lb = np.polyfit(np.log(best["C"]), np.log(best["loss"]), 1)
    return np.exp(b) * budgets ** a, np.exp(lb) * budgets ** la


def test_frames_have_the_files_columns(baseline):
    assert isinstance(baseline, sl.Extrapolation)
    assert set(LEADERBOARD_COLUMNS) <= set(baseline.leaderboard.columns)
    assert list(baseline.tables.columns) == ["world", "design", "replication", "N", "D", "C", "budget", "loss"]
    for col in ["world", "horizon", "C", "N_opt", "N_lo", "N_hi", "D_opt", "L_opt"]:
        assert col in baseline.truth.columns
    for col in ["world", "design", "method", "replication", "horizon", "C", "ok", "N_opt", "N_lo", "N_hi",
                "L_opt", "regret", "note"]:
        assert col in baseline.predictions.columns
    assert sorted(baseline.leaderboard["horizon"]) == [10, 100]
    assert set(baseline.leaderboard["method"]) == {"approach2"}
    assert len(baseline.report["rows"]) == len(baseline.leaderboard)
    assert baseline.tables["C"].max() <= 1e10 * 1.05  # the methods see the small budgets only


def test_oracle_has_no_error_and_full_coverage(world, baseline, tmp_path):
    truth = baseline.truth.set_index("C")
    seen = []

    def oracle(table, budgets):
        assert isinstance(table, pd.DataFrame) and list(table.columns) == ["N", "D", "C", "budget", "loss"]
        assert isinstance(budgets, np.ndarray)
        seen.append(len(table))
        t = truth.loc[budgets]
        return {"N_opt": t["N_opt"].to_numpy(), "N_lo": 0.9 * t["N_opt"].to_numpy(),
                "N_hi": 1.1 * t["N_opt"].to_numpy(), "L_opt": list(t["L_opt"]),
                "L_lo": 0.99 * t["L_opt"].to_numpy(), "L_hi": 1.01 * t["L_opt"].to_numpy()}

    res = sl.extrapolate([world], methods=["approach2"], out=tmp_path / "out", custom={"oracle": oracle})
    assert seen and all(n == seen[0] > 0 for n in seen)
    board = res.leaderboard[res.leaderboard["method"] == "oracle"]
    assert len(board) == 2
    assert np.allclose(board["N_err_median"], 0, atol=1e-6)
    assert np.allclose(board["L_err_median"], 0, atol=1e-6)
    assert (board["N_coverage"] == 1).all() and (board["L_coverage"] == 1).all()
    assert (board["failed"] == 0).all()
    assert "oracle" in res.report["methods"]
    pred = res.predictions[res.predictions["method"] == "oracle"]
    assert (pred["ok"] == 1).all()
    # D_opt not given: C / (6 N_opt).
    assert np.allclose(pred["D_opt"], pred["C"] / (6 * pred["N_opt"]), rtol=1e-6)


def test_a_numpy_fit_is_scored_with_the_built_in_ones(world, tmp_path):
    res = sl.extrapolate(world, methods=["approach2", "approach3"], out=tmp_path / "out",
                         custom={"best-run": best_run_fit})
    board = res.leaderboard
    assert set(board["method"]) == {"approach2", "approach3", "best-run"}
    mine = board[board["method"] == "best-run"]
    assert (mine["failed"] == 0).all()
    assert mine["N_err_median"].notna().all() and (mine["N_err_median"].abs() < 2).all()
    assert mine["N_coverage"].isna().all()  # no interval given
    assert list(res.report["methods"]) == ["approach2", "approach3", "best-run"]


@pytest.mark.parametrize("bad, words", [
    (lambda t, b: {"N_opt": np.ones(len(b) + 1)}, "shape"),
    (lambda t, b: [1.0] * len(b), "list"),
    (lambda t, b: {"N_opt": np.ones(len(b)), "N_hat": 1}, "N_hat"),
    (lambda t, b: {"L_opt": np.ones(len(b))}, "no N_opt"),
    (lambda t, b: {"N_opt": ["big"] * len(b)}, "not numbers"),
    (lambda t, b: (np.ones(len(b)),), "tuple"),
    (lambda t, b: {"N_opt": -np.ones(len(b))}, "<= 0"),
])
def test_a_malformed_return_is_a_value_error_naming_the_method(world, tmp_path, bad, words):
    with pytest.raises(ValueError, match="'garbage'") as e:
        sl.extrapolate(world, methods=["approach2"], out=tmp_path / "out", custom={"garbage": bad})
    assert words in str(e.value)


def test_an_exception_in_the_callable_propagates(world, tmp_path):
    class Boom(Exception):
        pass

    def boom(table, budgets):
        raise Boom("no fit today")

    with pytest.raises(Boom, match="no fit today"):
        sl.extrapolate(world, methods=["approach2"], out=tmp_path / "out", custom={"boom": boom})
    # The interpreter is fine afterwards: the same folder again, resumed.
    res = sl.extrapolate(world, methods=["approach2"], out=tmp_path / "out", resume=True)
    assert set(res.leaderboard["method"]) == {"approach2"}


def test_the_callables_own_value_error_is_not_rewritten(world, tmp_path):
    mine = ValueError("my fit wants --more data")

    def picky(table, budgets):
        raise mine

    with pytest.raises(ValueError) as e:
        sl.extrapolate(world, methods=["approach2"], out=tmp_path / "out", custom={"picky": picky})
    assert e.value is mine


def test_an_existing_folder_needs_resume(world, tmp_path):
    sl.extrapolate(world, methods=["approach2"], out=tmp_path / "out", frame=False)
    with pytest.raises(ValueError, match=r"resume=True"):
        sl.extrapolate(world, methods=["approach2"], out=tmp_path / "out", frame=False)


def test_none_and_nan_are_no_prediction(world, tmp_path):
    res = sl.extrapolate(world, methods=["approach2"], out=tmp_path / "out",
                         custom={"never": lambda t, b: None,
                                 "near": lambda t, b: {"N_opt": [1e4] + [math.nan] * (len(b) - 1)}})
    board = res.leaderboard.set_index(["method", "horizon"])
    assert board.loc[("never", 10), "failed"] == 1
    assert board.loc[("near", 10), "failed"] == 0


def test_replications_reach_the_custom_method_as_fresh_tables(tmp_path):
    path = tmp_path / "mem.toml"
    path.write_text(MEMORY_WORLD)
    tables = []

    def record(table, budgets):
        assert isinstance(table, dict) and set(table) == {"N", "D", "C", "budget", "loss"}
        assert all(isinstance(v, np.ndarray) for v in table.values())
        tables.append(table["loss"].copy())
        return best_run_fit(pd.DataFrame(table), budgets)

    res = sl.extrapolate(path, methods=["approach3"], replications=2, out=tmp_path / "out",
                         custom={"record": record}, frame=False)
    assert res.leaderboard is None and res.tables is None
    assert len(tables) == 2 and not np.array_equal(tables[0], tables[1])
    rows = [r for r in res.report["rows"] if r["method"] == "record"]
    assert rows and rows[0]["replications"] == 2


@pytest.mark.parametrize("kwargs, words", [
    ({"methods": ["approach9"]}, "approach9"),
    ({"methods": []}, "methods"),
    ({"replications": 0}, "replications"),
    ({"replications": 2.5}, "replications"),
    ({"bootstrap": -3}, "bootstrap"),
    ({"bootstrap": 5}, "bootstrap"),
    ({"threads": -1}, "threads"),
    ({"custom": {"x": 3}}, "'x'"),
    ({"custom": {"approach2": best_run_fit}}, "approach2"),
])
def test_bad_arguments_are_value_errors(world, tmp_path, kwargs, words):
    kwargs.setdefault("methods", ["approach2"])
    with pytest.raises(ValueError, match=words):
        sl.extrapolate(world, out=tmp_path / "never", **kwargs)
    assert not (tmp_path / "never").exists()


def test_no_world_and_missing_world(tmp_path):
    with pytest.raises(ValueError, match="world"):
        sl.extrapolate([], out=tmp_path / "never")
    with pytest.raises(ValueError, match="nowhere.toml"):
        sl.extrapolate(tmp_path / "nowhere.toml", out=tmp_path / "never")
