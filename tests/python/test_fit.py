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
    text = sl._csv_text(pd.DataFrame({"x": [0.1 + 0.2, 1e-310], "loss": [1.0, 2.0]})).decode()
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
    py.pop("figure")  # what plot_fit draws: Python's only
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


def _small_chinchilla():
    df = pd.read_csv(os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv"))
    return dict(data=df, law="chinchilla", N="Model Size", C="Training FLOP", drop_top=5,
                grid={"alpha": [0.3], "beta": [0.3]})


@pytest.mark.parametrize("keyword, value, message", [
    ("level", 2.0, "level=2: the coverage of an interval must be from 0.5 to 0.999"),
    ("level", 1e7, "level=1e+07:"),
    ("level", float("nan"), "level=nan:"),
    ("delta", -1, "delta=-1: the Huber threshold must be positive"),
    ("seed", -1, "seed=-1: a seed is a whole number"),
    ("bootstrap", -5, "bootstrap=-5:"),
    ("bootstrap", 1, "bootstrap=1:"),
    ("bootstrap_starts", -7, "bootstrap_starts=-7:"),
    ("threads", -1, "threads=-1:"),
    ("polish", -1, "polish=-1:"),
    ("at", [float("inf")], "at=inf:"),
])
def test_fit_refuses_what_the_command_line_refuses(keyword, value, message):
    # Each was accepted from Python (level=2 read outside the bootstrap sample) and refused by the CLI.
    with pytest.raises(ValueError) as e:
        sl.fit(**_small_chinchilla(), **{"bootstrap": 4, keyword: value})
    assert message in str(e.value)


def test_frontier_and_predict_refuse_what_the_command_line_refuses():
    path = os.path.join(DATA, "llama3-isoflops-extraction.csv")
    cols = dict(C="compute_budget", D="training_tokens", loss="validation_loss")
    for keyword, value, message in [("seed", -1, "seed=-1:"), ("level", 2.0, "level=2:"), ("bootstrap", -5, "bootstrap=-5:"),
                                    ("group_tolerance", -0.1, "group_tolerance=-0.1:"), ("at", [0], "at=0:")]:
        with pytest.raises(ValueError, match=message):
            sl.frontier(path, **cols, **{"bootstrap": 4, keyword: value})
    r = sl.fit(**_small_chinchilla(), bootstrap=4)
    with pytest.raises(ValueError, match="level=2:"):
        sl.predict(r, level=2.0, N=7e10, D=1.4e12)


def test_predict_at_a_huge_level_is_an_error_not_a_crash():
    # level=1e7 once indexed far outside the replicates and killed the interpreter (SIGSEGV).
    import subprocess
    import sys

    code = ("import os, pandas as pd, scalinglab as sl\n"
            f"df = pd.read_csv({os.path.join(DATA, 'chinchilla-figure4-epoch-extraction.csv')!r})\n"
            "r = sl.fit(df, 'chinchilla', N='Model Size', C='Training FLOP', bootstrap=4, grid={'alpha': [0.3], 'beta': [0.3]})\n"
            "try:\n    sl.predict(r, level=1e7, N=7e10, D=1.4e12)\nexcept ValueError as e:\n    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "refused: level=1e+07:" in out.stdout


def test_an_edited_saved_fit_is_a_value_error():
    r = sl.fit(**_small_chinchilla(), bootstrap=4)
    broken = dict(r, saved=dict(r["saved"], theta=[]))
    with pytest.raises(ValueError, match="'theta' is not a list of 5 numbers"):
        sl.predict(broken, N=7e10, D=1.4e12)


def test_least_squares_from_python_is_delta_inf():
    # JSON has no infinity: it travels as text and means least squares, as `--delta inf` does.
    a = sl.fit(**_small_chinchilla(), bootstrap=0, delta=float("inf"))
    assert a["huber_delta"] is None  # infinite: null in JSON
    assert a["loss_function"] == "least_squares"


LLAMA3 = os.path.join(DATA, "llama3-isoflops-extraction.csv")


def test_frontier_gives_intervals_on_every_number_of_the_frontier():
    r = sl.frontier(LLAMA3, C="compute_budget", D="training_tokens", loss="validation_loss", bootstrap=200,
                    at=[3.8e25])
    row = r["frontier"][0]
    for name in ("N_opt", "D_opt", "loss"):
        assert row[f"{name}_lo"] < row[name] < row[f"{name}_hi"], name
    # D_opt = C / (6 N_opt) at every replicate: its interval is N_opt's mirrored.
    assert row["D_opt_lo"] == pytest.approx(3.8e25 / (6 * row["N_opt_hi"]), rel=1e-2)
    law = r["loss_law"]
    assert law["fitted"] and law["E_lo"] < law["E"] < law["E_hi"]


def test_frontier_where_keeps_rows_as_fit_does():
    df = pd.read_csv(LLAMA3)
    kw = dict(C="compute_budget", D="training_tokens", loss="validation_loss", bootstrap=0)
    everything = sl.frontier(df, **kw)
    big = sl.frontier(df, where="C>=1e19", **kw)
    assert len(everything["slices"]) == 10
    assert len(big["slices"]) == len({c for c in df["compute_budget"] if c >= 1e19})
    assert min(s["C"] for s in big["slices"]) >= 1e19 * 0.999
    with pytest.raises(ValueError, match="at least 2 compute budgets"):  # one budget kept: one slice
        sl.frontier(df, where={"compute_budget": "1e20"}, **kw)


def test_frontier_flops_selects_the_budget_column():
    df = pd.read_csv(LLAMA3)
    df["params"] = df["compute_budget"] / (6 * df["training_tokens"])
    # With C = 6 N D the slices are the original ones; with a formula doubling C they move by 2x.
    kw = dict(N="params", D="training_tokens", loss="validation_loss", bootstrap=0)
    same = sl.frontier(df, flops="6*N*D", **kw)
    twice = sl.frontier(df, flops="12*N*D", **kw)
    assert [s["C"] for s in same["slices"]] == pytest.approx(sorted(set(df["compute_budget"])), rel=1e-9)
    assert [s["C"] for s in twice["slices"]] == pytest.approx([2 * c for c in sorted(set(df["compute_budget"]))], rel=1e-9)
    with pytest.raises(ValueError, match="flops"):
        sl.frontier(df, flops="6*N*D", C="compute_budget", D="training_tokens", loss="validation_loss", bootstrap=0)


def test_predict_gives_the_prediction_interval_beside_the_laws():
    df = pd.read_csv(os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv"))
    r = sl.fit(df, "chinchilla", N="Model Size", C="Training FLOP", drop_top=5, bootstrap=50)
    p = sl.predict(r, N=7e10, D=1.4e12)[0]
    # The prediction interval holds the law's interval: it adds the residual scatter to it.
    assert p["loss_pi_lo"] < p["loss_lo"] < p["loss"] < p["loss_hi"] < p["loss_pi_hi"]


def _lines(ax):
    return [l for l in ax.get_lines() if not l.get_label().startswith("_")]


@pytest.fixture(scope="module")
def chinchilla_result():
    df = pd.read_csv(os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv"))
    return sl.fit(df, "chinchilla", N="Model Size", C="Training FLOP", drop_top=5, bootstrap=20)


def _agg():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_title()]


def _expect_legends_outside(fig, drawn=True):
    """Every legend is anchored below its axes and, once drawn (drawing takes a second), lies clear
    of every axes' data area (colour bars too) and of its axes' x label."""
    for ax in _panels(fig):
        legend = ax.get_legend()
        assert legend is not None, ax.get_title()
        anchor = ax.transAxes.inverted().transform(legend.get_bbox_to_anchor().p0)
        assert anchor[1] < 0, (ax.get_title(), anchor)
    if not drawn:
        return
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in _panels(fig):
        box = ax.get_legend().get_window_extent(renderer)
        assert not box.overlaps(ax.xaxis.label.get_window_extent(renderer)), ax.get_title()
        for other in fig.axes:
            assert not box.overlaps(other.get_window_extent(renderer)), (ax.get_title(), other.get_title())


def test_plot_fit_draws_the_panels_of_a_two_input_fit(chinchilla_result):
    plt = _agg()
    r = chinchilla_result
    fig = sl.plot_fit(r)
    panels = _panels(fig)
    titles = [ax.get_title() for ax in panels]
    assert titles == ["IsoFLOP curves", "Loss against D / N", "Compute-optimal frontier", "Residuals",
                      "Residuals against N", "Residuals against D"]
    assert r["figure"]["panels"] == ["isoflop", "ratio", "frontier", "residuals", "residuals-N", "residuals-D"]
    frontier = panels[2]
    labels = [l.get_label() for l in _lines(frontier)]
    assert any(t.startswith("N$") and "∝ C$^{0.5" in t and t.endswith("(chinchilla law)") for t in labels), labels
    assert any(t.startswith("D$") and "∝ C$^{0.4" in t for t in labels), labels
    bands = [c.get_label() for c in frontier.collections if "band" in c.get_label()]
    assert len(bands) == 2  # N_opt's and D_opt's
    # Each IsoFLOP curve of the law is drawn dashed in its budget's colour, and every line has a legend entry.
    iso = panels[0]
    dashed = [l for l in iso.get_lines() if l.get_linestyle() == "--"]
    assert len(dashed) >= len(r["figure"]["isoflop_curves"])
    for ax in panels:
        entries = {t.get_text() for t in ax.get_legend().get_texts()}
        for line in _lines(ax):
            assert line.get_label() in entries
    # Labels from the columns' names, never "N (parameters): Model Size".
    assert iso.get_xlabel() == "N (Model Size)" and panels[2].get_xlabel() == "C (Training FLOP)"
    assert not [a.get_xlabel() for a in fig.axes if "(parameters): " in a.get_xlabel() + a.get_ylabel()]
    assert fig.get_size_inches()[0] == pytest.approx(3 * 3.3)
    _expect_legends_outside(fig, drawn=False)
    plt.close(fig)


def test_plot_fit_draws_panels_alone_or_in_the_order_asked(chinchilla_result):
    from scalinglab.plot_fit import _chosen

    plt = _agg()
    r = chinchilla_result
    f = r["figure"]
    for name in f["panels"]:  # every name, in any case, as the command line takes them
        assert _chosen(f, [name.upper()]) == [name]
    fig = sl.plot_fit(r, panels=["frontier"])  # one panel: one column of a two-column paper
    assert [ax.get_title() for ax in _panels(fig)] == ["Compute-optimal frontier"]
    assert fig.get_size_inches()[0] == pytest.approx(3.3)
    plt.close(fig)
    fig = sl.plot_fit(r, panels="Residuals-n, isoflop")  # a list as the command line writes it
    assert [ax.get_title() for ax in _panels(fig)] == ["Residuals against N", "IsoFLOP curves"]
    assert fig.get_size_inches()[0] == pytest.approx(6.6)
    _expect_legends_outside(fig)
    plt.close(fig)
    for bad in (["bogus"], ["isoflop", "loss"]):  # loss: a panel of IsoFLOP analyses only
        with pytest.raises(ValueError, match="its panels are isoflop, ratio, frontier, residuals, residuals-N"):
            sl.plot_fit(r, panels=bad)
    with pytest.raises(TypeError, match="panels"):
        sl.plot_fit(r, panels=[])


def test_plot_fit_draws_an_isoflop_analysis_and_refuses_other_dicts():
    plt = _agg()
    r = sl.frontier(LLAMA3, C="compute_budget", D="training_tokens", loss="validation_loss", bootstrap=50)
    fig = sl.plot_fit(r)
    panels = _panels(fig)
    assert [ax.get_title() for ax in panels] == ["IsoFLOP curves", "Compute-optimal frontier", "Loss at the optimum"]
    parabolas = [l for l in panels[0].get_lines() if l.get_linestyle() == "--"]
    assert len(parabolas) >= len(r["slices"])
    assert any("band of D" in c.get_label() for c in panels[1].collections)
    assert any("band of L" in c.get_label() for c in panels[2].collections)
    assert panels[1].get_xlabel() == "C (compute_budget)" and panels[0].get_xlabel() == "N (parameters)"
    plt.close(fig)
    fig = sl.plot_fit(r, panels=["loss", "frontier", "isoflop"])
    assert [ax.get_title() for ax in _panels(fig)] == ["Loss at the optimum", "Compute-optimal frontier",
                                                        "IsoFLOP curves"]
    plt.close(fig)
    with pytest.raises(TypeError, match="plot_fit"):
        sl.plot_fit({"a": 1})


def test_the_figure_of_a_large_table_draws_an_even_subsample(tmp_path):
    # 6,000 rows: the figure holds 5,000 of them (rows i * 6000 // 5000) with the residuals of the
    # fit on every row, which the command line's fit of the same file matches.
    import json
    import subprocess

    n = 6000
    x = 10 ** (1 + 5 * ((np.arange(n) * 7919) % n) / n)
    loss = 3 * x ** -0.5 * np.where(np.arange(n) % 100 == 0, 1.01, 1.0)
    path = tmp_path / "big.csv"
    path.write_text("steps,loss\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(x, loss)))
    r = sl.fit(str(path), "power", x="steps", bootstrap=0)
    f = r["figure"]
    assert (f["points_shown"], f["points_total"]) == (5000, n)
    rows = np.arange(5000) * n // 5000
    assert np.array_equal(np.array(f["points"]["x"]), x[rows])
    expected = np.log(r["A"] * x[rows] ** -r["a"]) - np.log(loss[rows])
    assert np.allclose(np.array(f["points"]["residual"]), expected, rtol=0, atol=1e-12)
    cli = json.loads(subprocess.run([_cli(), "fit", str(path), "--law", "power", "--x", "steps", "--bootstrap", "0",
                                     "--json"], check=True, capture_output=True, text=True).stdout)
    assert (r["A"], r["a"], r["objective"]) == (cli["A"], cli["a"], cli["objective"])
    assert f["labels"]["x"] == "steps"
    plt = _agg()
    fig = sl.plot_fit(r, panels=["law"])
    assert "data (5000 of 6000 shown)" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    plt.close(fig)


def _chinchilla_frame(sigma, seed, budgets=8, sizes=9):
    """An IsoFLOP design with a Chinchilla law times exp(sigma * normal)."""
    rng = np.random.default_rng(seed)
    rows = []
    for C in np.logspace(18, 21, budgets):
        for k in range(sizes):
            N = 0.1 * (C / 6) ** 0.45 * 10 ** ((k - sizes // 2) / 4)
            D = C / (6 * N)
            rows.append((N, D, (1.8 + 400 / N ** 0.34 + 2000 / D ** 0.28) * np.exp(sigma * rng.standard_normal())))
    return pd.DataFrame(rows, columns=["N", "D", "loss"])


SMALL_GRID = {"grid": ["log(E)=0,0.5", "log(A)=3,6", "log(B)=3,8", "alpha=0.2,0.5", "beta=0.2,0.5"],
              "bounds": "E=0:,A=0:,B=0:", "bootstrap": 0}


def test_nan_cells_are_an_error_or_dropped_with_a_count():
    df = _chinchilla_frame(0.005, 1)
    df.loc[[2, 5], "loss"] = np.nan
    df.loc[7, "D"] = None
    with pytest.raises(ValueError, match=r"row 2: column 'loss' has no value there.*drop_missing=True"):
        sl.fit(df, "E + A/N^alpha + B/D^beta", N="N", D="D", **SMALL_GRID)
    r = sl.fit(df, "E + A/N^alpha + B/D^beta", N="N", D="D", drop_missing=True, **SMALL_GRID)
    assert r["missing_dropped"] == 3
    assert r["missing_by_column"] == {"loss": 2, "D": 1}
    assert r["points"] == len(df) - 3


def test_repeated_seeds_are_aggregated():
    df = _chinchilla_frame(0.0, 2)
    rng = np.random.default_rng(3)
    seeds = pd.concat([df] * 3, ignore_index=True)
    seeds["loss"] *= np.exp(0.01 * rng.standard_normal(len(seeds)))
    plain = sl.fit(seeds, "E + A/N^alpha + B/D^beta", N="N", D="D", **SMALL_GRID)
    assert any("occur on more than one row" in w for w in plain["warnings"])
    r = sl.fit(seeds, "E + A/N^alpha + B/D^beta", N="N", D="D", aggregate="mean", **SMALL_GRID)
    assert r["points"] == len(df)
    assert r["aggregate"]["groups"] == len(df) and r["aggregate"]["largest"] == 3
    assert r["aggregate"]["noise_sd"] == pytest.approx(0.01, rel=0.25)
    with pytest.raises(ValueError, match="aggregate"):
        sl.fit(seeds, N="N", D="D", aggregate="median", bootstrap=0)


def test_units_scale_a_column():
    df = _chinchilla_frame(0.005, 4)
    ref = sl.fit(df, "E + A/N^alpha + B/D^beta", N="N", D="D", **SMALL_GRID)
    units = df.assign(N=df["N"] / 1e6, D=df["D"] / 1e9)
    r = sl.fit(units, "E + A/N^alpha + B/D^beta", N="N", D="D", N_scale="M", D_scale=1e9, **SMALL_GRID)
    assert r["alpha"] == pytest.approx(ref["alpha"], rel=1e-6)
    with pytest.raises(ValueError, match="N_scale='x'"):
        sl.fit(units, N="N", D="D", N_scale="x", bootstrap=0)


def test_maximum_likelihood_matches_least_squares_in_log_space_and_finds_the_noise():
    """objective="mle" with a normal density (delta=inf): the estimates are those of an independent
    least-squares fit of the log loss (scipy), and the fitted noise is close to the noise put in."""
    least_squares = pytest.importorskip("scipy.optimize").least_squares
    sigma = 0.02
    df = _chinchilla_frame(sigma, 5, budgets=20, sizes=11)
    r = sl.fit(df, "E + A/N^alpha + B/D^beta", N="N", D="D", objective="mle", delta=float("inf"),
               **{**SMALL_GRID, "bootstrap": 50})
    logN, logD, logL = np.log(df["N"].to_numpy()), np.log(df["D"].to_numpy()), np.log(df["loss"].to_numpy())

    def residuals(p):
        e, a, al, b, be = p
        return np.logaddexp(np.logaddexp(e, a - al * logN), b - be * logD) - logL
    best = min((least_squares(residuals, [e, a, al, b, be], xtol=1e-15, ftol=1e-15, gtol=1e-15)
                for e in (0, 0.5) for a in (3, 6) for al in (0.2, 0.5) for b in (3, 8) for be in (0.2, 0.5)),
               key=lambda s: s.cost)
    e, a, al, b, be = best.x
    for name, value in (("E", np.exp(e)), ("A", np.exp(a)), ("alpha", al), ("B", np.exp(b)), ("beta", be)):
        assert r[name] == pytest.approx(value, rel=1e-6), name
    rmse = np.sqrt(np.mean(residuals(best.x) ** 2))
    assert r["noise_sd"] == pytest.approx(rmse, rel=1e-7)
    assert r["noise_sd"] == pytest.approx(sigma, rel=0.1)
    assert r["noise_sd_lo"] < r["noise_sd"] < r["noise_sd_hi"]
    assert r["objective_kind"] == "mle"
    n = len(df)
    assert r["objective"] == pytest.approx(n * np.log(rmse) + n / 2 * (1 + np.log(2 * np.pi)), rel=1e-9)
    with pytest.raises(ValueError, match="objective"):
        sl.fit(df, N="N", D="D", objective="likelihood", bootstrap=0)


# ---- files read as the command line reads them ------------------------------------------------

def _unreadable(kind, tmp_path):
    """A path the fitters must refuse before reading it, and the sentence they refuse it with."""
    if kind == "device":  # read for ever
        return "/dev/zero", "/dev/zero: not a regular file"
    if kind == "pipe":  # opened for reading, it waits for a writer
        path = tmp_path / "runs.csv"
        os.mkfifo(path)
        return str(path), "runs.csv: not a regular file"
    path = tmp_path / "runs.csv"  # 1.5 GB of holes: over the table limit by its size alone
    with open(path, "wb") as f:
        f.truncate(1500 << 20)
    return str(path), f"runs.csv: {1500 << 20} bytes is more than the {1 << 30} a"


@pytest.mark.parametrize("kind", ["device", "pipe", "sparse"])
def test_fit_frontier_and_predict_refuse_a_path_that_is_not_a_sane_file(tmp_path, deadline, kind):
    import time

    path, sentence = _unreadable(kind, tmp_path)
    calls = {"fit": lambda: sl.fit(path, "power", x="x", bootstrap=0),
             "frontier": lambda: sl.frontier(path, N="N", C="C", bootstrap=0),
             "predict": lambda: sl.predict(path, N=1e9, D=1e10)}
    for name, call in calls.items():
        start = time.monotonic()
        with deadline(10), pytest.raises(ValueError) as e:
            call()
        assert sentence in str(e.value), name
        assert time.monotonic() - start < 2, name


def test_bytes_that_are_not_utf8_are_read_as_the_command_line_reads_them(tmp_path):
    import json
    import subprocess

    rows = b"x,loss\n1,3\n2,2.1\n4,1.5\n8,1.06\n16,0.75\n"
    good = tmp_path / "good.csv"
    good.write_bytes(rows)
    # In a column the fit does not read (and in its name), a byte that is not UTF-8 changes nothing.
    elsewhere = tmp_path / "noted.csv"
    elsewhere.write_bytes(b"x,loss,n\xffte\n" + b"".join(line + b",caf\xe9\n" for line in rows.splitlines()[1:]))
    assert sl.fit(elsewhere, "power", x="x", bootstrap=0)["a"] == sl.fit(good, "power", x="x", bootstrap=0)["a"]
    # In a cell it reads, it is refused with the command line's sentence (the byte shown as \xFF).
    cell = tmp_path / "runs--cell.csv"
    cell.write_bytes(rows.replace(b"\n4,", b"\n\xff,"))
    with pytest.raises(ValueError) as e:
        sl.fit(cell, "power", x="x", bootstrap=0)
    assert str(e.value) == f"{cell}:4: column 'x' holds '\\xFF', not a finite decimal number (x=)"
    cli = subprocess.run([_cli(), "fit", str(cell), "--law", "power", "--x", "x", "--bootstrap", "0"], capture_output=True)
    assert cli.returncode == 2
    assert cli.stderr.decode("utf-8", "backslashreplace") == f"scalinglab: error: {cell}:4: column 'x' holds '\\xFF', not a finite decimal number (--x)\n"
    # A saved fit that is not UTF-8 is not JSON, as `scalinglab predict` says.
    fitted = sl.fit(good, "power", x="x", bootstrap=0)
    saved = tmp_path / "fit.json"
    saved.write_text(json.dumps({k: v for k, v in fitted.items() if k != "figure"}))
    assert sl.predict(saved, x=10) == sl.predict(fitted, x=10)
    saved.write_bytes(saved.read_bytes().replace(b'"power"', b'"\xffower"'))
    with pytest.raises(ValueError, match=f"predict: {saved} is not JSON"):
        sl.predict(saved, x=10)


def _muennighoff_loss(N, D, U, E, A, alpha, B, beta, R_D, R_N):
    """Muennighoff et al. (2023), eq. 5, both terms, written with numpy: U_N is the compute-optimal
    size for the U_D unique tokens, G (U_D G)^(beta/alpha) with Hoffmann et al.'s G."""
    UD = np.minimum(U, D)
    G = (alpha * A / (beta * B)) ** (1 / (alpha + beta))
    UN = np.minimum(N, (UD * G) ** (beta / alpha) * G)
    Dp = UD + UD * R_D * (1 - np.exp(-(D / UD - 1) / R_D))
    Np = UN + UN * R_N * (1 - np.exp(-(N / UN - 1) / R_N))
    return E + A / Np ** alpha + B / Dp ** beta


def test_muennighoff_full_by_name_and_its_unidentified_excess_parameters():
    truth = dict(E=1.9, A=500.0, alpha=0.35, B=1500.0, beta=0.35, R_D=15.4, R_N=5.3)
    rng = np.random.default_rng(2)

    def runs(sizes):  # sizes: multiples of the compute-optimal size for the unique tokens
        rows = []
        for U in (1e8, 1e9):
            n_opt = (truth["A"] / truth["B"] * U ** 0.35) ** (1 / 0.35)
            rows += [(k * n_opt, e * U, U) for e in (1, 4, 16, 64) for k in sizes]
        N, D, U = np.array(rows).T
        loss = _muennighoff_loss(N, D, U, **truth) * np.exp(5e-4 * rng.standard_normal(len(N)))
        return pd.DataFrame({"N": N, "D": D, "U": U, "loss": loss})

    grid = ["log(E)=0", "log(A)=4,8", "log(B)=5,9", "alpha=0.25", "beta=0.25", "R_D=5,40", "R_N=2,20"]
    r = sl.fit(runs((0.5, 2, 8, 32)), "muennighoff-full", N="N", D="D", grid=grid, bootstrap=4, bootstrap_starts=1)
    assert r["R_D"] == pytest.approx(truth["R_D"], rel=0.05) and r["R_N"] == pytest.approx(truth["R_N"], rel=0.05)
    assert r["R_N_identified"] and r["R_N_se"] > 0
    # The law as fitted against the numpy formula at the fitted values.
    fitted = {k: r[k] for k in truth}
    for p in sl.predict(r, N=[3e6, 3e8], D=[2e9, 5e10], U=[1e9, 1e9]):
        assert p["loss"] == pytest.approx(_muennighoff_loss(p["N"], p["D"], p["U"], **fitted), rel=1e-10)
    # Without runs beyond the compute-optimal size R_N has no effect: unidentified, no number.
    s = sl.fit(runs((0.1, 0.2, 0.4)), "muennighoff-full", N="N", D="D", grid=grid, bootstrap=4, bootstrap_starts=1)
    assert s["R_N_identified"] is False and s["R_N_se"] is None and "flat direction" in s["R_N_unidentified"]


def test_a_law_parameter_named_like_a_column():
    # A memory world's table (sl.run(..., columns="all")) has `alpha`, the Zipf exponent: with N and D
    # mapped to columns, the law's alpha is a parameter, not a third input.
    N, D = (a.ravel() for a in np.meshgrid(1e6 * 10.0 ** np.arange(4), 1e8 * 10.0 ** np.arange(4)))
    df = pd.DataFrame({"params": N, "tokens": D, "error": 0.5 + 40 / N ** 0.3 + 200 / D ** 0.25, "alpha": 1.1})
    with pytest.warns(UserWarning, match="'alpha' is also the name of a column; fitted as a parameter"):
        r = sl.fit(df, "E + A/N^alpha + B/D^beta", N="params", D="tokens", loss="error", bootstrap=0,
                   bounds={"E": (0, None), "A": (0, None), "B": (0, None)},
                   grid={"log(E)": [-1], "log(A)": [3, 4], "log(B)": [5], "alpha": [0.3], "beta": [0.25]})
    assert r["inputs"] == ["N", "D"]
    assert r["alpha"] == pytest.approx(0.3, rel=1e-6) and r["beta"] == pytest.approx(0.25, rel=1e-6)
    assert any('(to read the column, add input_column=["alpha"])' in w for w in r["warnings"])


def _sharp_isoflop_slices():
    """Three IsoFLOP slices whose losses span decades about a sharp minimum (L = L_min exp(1.5 t^2),
    t = log N - log N_opt, one run at the minimum): a parabola in the loss has its minimum below 0."""
    rows = []
    for C in (1e18, 1e19, 1e20):
        n_opt = 0.09 * C ** 0.47
        for t in np.linspace(-2.0, 1.2, 9):
            rows.append((C, n_opt * np.exp(t), 0.01 * (C / 1e18) ** -0.1 * np.exp(1.5 * t * t)))
    return pd.DataFrame(rows, columns=["C", "N", "loss"])


def test_frontier_warns_of_a_minimum_below_the_losses_and_fits_log_loss():
    df = _sharp_isoflop_slices()
    with pytest.warns(UserWarning, match="not positive and far below") as caught:
        r = sl.frontier(df, N="N", C="C", bootstrap=0)
    assert all(s["loss_opt"] < 0 for s in r["slices"])
    warned = [w for w in r["warnings"] if "parabola's minimum" in w]
    assert len(warned) == 3 and all("log_loss=True" in w and "--" not in w for w in warned)
    assert len([w for w in caught if "parabola's minimum" in str(w.message)]) == 3
    r = sl.frontier(df, N="N", C="C", bootstrap=0, log_loss=True)
    assert r["log_loss"] is True and not any("parabola's minimum" in w for w in r["warnings"])
    for s, (C, runs) in zip(r["slices"], df.groupby("C")):
        assert s["C"] == pytest.approx(C)
        assert 0 < s["loss_opt"] and runs["loss"].min() * (1 - 1e-9) <= s["loss_opt"] <= runs["loss"].max()
    assert r["loss_exponent"] == pytest.approx(-0.1, abs=1e-9)


def test_messages_name_options_with_placeholders_as_python_keywords():
    from scalinglab._fit_args import _python_terms
    df = pd.DataFrame({"x": [1.0, 2.0, 4.0, 8.0], "loss": [3.0, 2.0, 1.5, 1.2]})
    # 10^8 starts are refused before any fit.
    with pytest.raises(ValueError, match=r'give fewer initial values \(grid=\{"NAME": \[\.\.\.\]\}\)') as e:
        sl.fit(df, "E + A*x^-a", x="x", grid=["a=0:1:999", "A=1:1:999", "E=1:1:99"], bootstrap=0)
    assert "--" not in str(e.value)
    assert (_python_terms("12800 starting points; give fewer initial values with --grid NAME=...", "data")
            == '12800 starting points; give fewer initial values with grid={"NAME": [...]}')
    assert _python_terms("keep the others with --where COLUMN=VALUE", "data").endswith('where={"COLUMN": VALUE}')
    assert _python_terms("group them with --budget COL, check", "data") == 'group them with budget="COL", check'
