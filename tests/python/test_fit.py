"""The fitters from Python: DataFrames in, the same numbers as the command line out."""
import os

import numpy as np
import pandas as pd
import pytest

import scalinglab as sl

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "examples", "data")


def test_power_law_from_a_dataframe():
    x = np.logspace(0, 4, 30)
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": x, "loss": 3 * x ** -0.5 * np.exp(0.01 * rng.standard_normal(30))})
    r = sl.fit(df, "power", x="x", bootstrap=50)
    assert abs(r["a"] - 0.5) < 0.01
    assert r["a_lo"] < r["a"] < r["a_hi"]


def test_chinchilla_example_matches_the_replication():
    df = pd.read_csv(os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv"))
    r = sl.fit(df, "chinchilla", N="Model Size", C="Training FLOP", drop_top=5, bootstrap=0, at=[5.76e23])
    assert r["points"] == 240
    assert abs(r["alpha"] - 0.35) < 0.02 and abs(r["beta"] - 0.37) < 0.02 and abs(r["E"] - 1.82) < 0.03
    assert r["frontier"][0]["N_opt"] == pytest.approx(r["G"] * (5.76e23 / 6) ** r["a"], rel=1e-9)


def test_isoflop_frontier_of_llama3():
    r = sl.frontier(os.path.join(DATA, "llama3-isoflops-extraction.csv"), C="compute_budget", D="training_tokens",
                    loss="validation_loss", bootstrap=200, at=[3.8e25])
    assert len(r["slices"]) == 10
    assert abs(r["b"] - 0.53) < 0.02  # the Llama 3 report's D*(C) ~ C^0.53
    assert r["a"] + r["b"] == pytest.approx(1.0)


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="no column"):
        sl.fit({"n": [1, 2, 3], "loss": [3, 2, 1]}, "power", x="x")
    with pytest.raises(ValueError, match="positive"):
        sl.fit({"x": [1, 2, 3, 4], "loss": [3, 2, 0, 1]}, "power", x="x")


def test_dataframes_reach_the_fitter_with_every_digit():
    # 0.1 + 0.2 needs 17 significant digits; a shorter text would fit a slightly different number.
    pd = pytest.importorskip("pandas")
    text = sl._csv_text(pd.DataFrame({"x": [0.1 + 0.2, 1e-310], "loss": [1.0, 2.0]}))
    values = [float(line.split(",")[0]) for line in text.strip().splitlines()[1:]]
    assert values == [0.1 + 0.2, 1e-310]


def _cli():
    return os.environ.get("SCALINGLAB_CLI", os.path.join(HERE, "..", "..", "build", "scalinglab"))


def test_the_same_fit_from_the_command_line_and_python_is_bit_identical(tmp_path):
    import json
    import subprocess

    path = os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv")
    saved = tmp_path / "fit.json"
    subprocess.run([_cli(), "fit", path, "--law", "E + A/N^alpha + B/D^beta", "--bounds", "E=0:,A=0:,B=0:",
                    "--grid", "log(E)=0,0.5", "--grid", "log(A)=3,6", "--grid", "log(B)=3,8", "--grid", "alpha=0.2,0.5",
                    "--grid", "beta=0.2,0.5", "--N", "Model Size", "--C", "Training FLOP", "--drop-top", "5",
                    "--holdout", "C>=1e21", "--where", "N>=1e8", "--bootstrap", "30", "--seed", "3", "--save", str(saved)],
                   check=True, capture_output=True)
    cli = json.loads(saved.read_text())
    # pandas' default float parser is not correctly rounded: read the file as the fitter does.
    py = sl.fit(pd.read_csv(path, float_precision="round_trip"), "E + A/N^alpha + B/D^beta", bounds={"E": (0, None), "A": (0, None), "B": (0, None)},
                grid=["log(E)=0,0.5", "log(A)=3,6", "log(B)=3,8", "alpha=0.2,0.5", "beta=0.2,0.5"], N="Model Size",
                C="Training FLOP", drop_top=5, holdout="C>=1e21", x_min=1e8, bootstrap=30, seed=3)
    cli.pop("bootstrap")  # holds the wall time
    py.pop("bootstrap")
    assert py == cli


def test_predict_from_a_fit_and_from_a_saved_file():
    df = pd.read_csv(os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv"))
    r = sl.fit(df, "chinchilla", N="Model Size", C="Training FLOP", drop_top=5, bootstrap=20, seed=2,
               grid={"alpha": [0.3], "beta": [0.3]})
    p = sl.predict(r, N=[1e9, 7e10], D=1.4e12)
    expect = r["E"] + r["A"] / 7e10 ** r["alpha"] + r["B"] / 1.4e12 ** r["beta"]
    assert p[1]["loss"] == pytest.approx(expect, rel=1e-12)
    assert p[1]["loss_lo"] < p[1]["loss"] < p[1]["loss_hi"]


def test_errors_name_keywords_and_dataframe_rows():
    df = pd.read_csv(os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv"))
    df.index = [f"run{i}" for i in range(len(df))]
    bad = df.copy()
    bad.iloc[7, bad.columns.get_loc("loss")] = -1.0
    with pytest.raises(ValueError, match=r"row 'run7'"):
        sl.fit(bad, "chinchilla", N="Model Size", C="Training FLOP", bootstrap=0)
    with pytest.raises(ValueError, match="drop_top="):
        sl.fit(df, "chinchilla", N="Model Size", C="Training FLOP", drop_top=-1, bootstrap=0)
    with pytest.raises(ValueError, match=r"row 'run0': weight \('w'\) = 0"):
        sl.fit(df.assign(w=0.0), "chinchilla", N="Model Size", C="Training FLOP", weight="w", bootstrap=0)
    with pytest.raises(ValueError, match="x_min="):
        sl.fit(df, "chinchilla", N="Model Size", C="Training FLOP", x_min=1e30, bootstrap=0)


def test_where_keeps_rows_by_condition_or_equality():
    df = pd.read_csv(os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv"))
    r = sl.fit(df, "chinchilla", N="Model Size", C="Training FLOP", where="C >= 1e19", bootstrap=0,
               grid={"alpha": [0.3], "beta": [0.3]})
    assert r["points"] == int((df["Training FLOP"] >= 1e19).sum())
    runs = pd.DataFrame({"size": [1e6, 1e7, 1e8, 1e9] * 2, "loss": [4.0, 3.0, 2.5, 2.2, 4.1, 3.2, 2.6, 2.3],
                         "seed": [1] * 4 + [2] * 4})
    r = sl.fit(runs, "power", x="size", where={"seed": 2}, bootstrap=0)
    assert r["points"] == 4
    assert r["A"] * 1e6 ** -r["a"] == pytest.approx(4.1, rel=0.05)
