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
