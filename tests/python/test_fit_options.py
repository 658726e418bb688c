"""fit, frontier and predict take the same options in Python as on the command line, the options the
two fitters share are accepted by both, and frontier has what fit has (units, missing values,
repeated seeds, both approaches). Long fits show progress and stop on Ctrl-C."""
import inspect
import os
import re
import subprocess
import threading
import time
import _thread

import numpy as np
import pandas as pd
import pytest

import scalinglab as sl
from scalinglab import _scalinglab as core

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "examples", "data")
CHINCHILLA = os.path.join(DATA, "chinchilla-figure4-epoch-extraction.csv")


def _cli():
    return os.environ.get("SCALINGLAB_CLI", os.path.join(HERE, "..", "..", "build", "scalinglab"))


def cli_options(command):
    """The long options of `scalinglab COMMAND --help`, as Python keywords (--x-min -> x_min)."""
    text = subprocess.run([_cli(), command, "--help"], capture_output=True, text=True, check=True).stdout
    names = set(re.findall(r"^\s+(?:-\w,\s*)?--([A-Za-z][\w-]*)", text, flags=re.M))
    return {n.replace("-", "_") for n in names} - {"help"}


def python_keywords(function):
    return {name for name, p in inspect.signature(function).parameters.items() if p.kind != p.VAR_KEYWORD}


# Where the two front ends differ by design: the command line prints (--json) and writes files
# (--plot, --plot-panels, --save) that Python returns as dicts and draws with plot_fit(panels=...);
# Python's progress keyword chooses where progress goes, which on the command line is always stderr;
# `data` is the command line's FILE argument.
CLI_ONLY = {"json", "plot", "plot_panels", "save"}
PYTHON_ONLY = {"data", "progress", "fit_result"}

# Options of one fitter that make no sense for the other: the law's own (fit) and the frontier's
# methods' own (the IsoFLOP slices, Approach 1's runs).
FIT_ONLY = {"law", "x", "x_min", "holdout", "cv", "compare", "input_column", "bounds", "grid", "delta", "objective",
            "bootstrap_starts", "polish"}
FRONTIER_ONLY = {"method", "group_tolerance", "budget", "trim", "skip_bad_slices", "log_loss", "run"}


@pytest.mark.parametrize("command", ["fit", "frontier", "predict"])
def test_the_command_line_and_python_accept_the_same_options(command):
    cli = cli_options(command) - CLI_ONLY
    python = python_keywords(getattr(sl, command)) - PYTHON_ONLY
    if command == "predict":
        cli -= {"inputs"}  # NAME=VALUE positional arguments, Python's **inputs
    assert cli == python, f"only on the command line: {sorted(cli - python)}; only in Python: {sorted(python - cli)}"


def test_fit_and_frontier_share_every_option_but_their_own():
    fit, frontier = python_keywords(sl.fit), python_keywords(sl.frontier)
    assert fit - frontier == FIT_ONLY
    assert frontier - fit == FRONTIER_ONLY
    # The core's lists of request keys are the same sets (one list of shared options for both).
    assert set(core.fit_option_keys()) == fit - PYTHON_ONLY
    assert set(core.frontier_option_keys()) == frontier - PYTHON_ONLY
    assert python_keywords(sl.predict) - PYTHON_ONLY <= fit  # level


def _isoflops(N_unit=1.0, D_unit=1.0, seeds=1):
    rows = []
    for C in [1e18, 3e18, 1e19, 3e19, 1e20]:
        for k in range(7):
            N = C ** 0.5 / 30 * 10 ** (k / 6)
            D = C / (6 * N)
            for s in range(seeds):
                loss = 1.7 + 400 / N ** 0.34 + 410 / D ** 0.28 + 0.002 * s
                rows.append({"N": N / N_unit, "D": D / D_unit, "loss": loss, "seed": s})
    return pd.DataFrame(rows)


def test_frontier_takes_units_and_warns_without_them():
    mb = _isoflops(1e6, 1e9)
    with pytest.warns(UserWarning, match="N_scale="):
        plain = sl.frontier(mb, N="N", D="D", bootstrap=0, at=[1e22], progress=False)
    assert any("N_scale=" in w for w in plain["warnings"])
    scaled = sl.frontier(mb, N="N", D="D", N_scale="M", D_scale=1e9, bootstrap=0, at=[1e22], progress=False)
    assert scaled["warnings"] == []
    exact = sl.frontier(_isoflops(), N="N", D="D", bootstrap=0, at=[1e22], progress=False)
    assert scaled["a"] == pytest.approx(exact["a"], rel=1e-9)


def test_frontier_drops_missing_values_with_counts():
    df = _isoflops()
    df.loc[3, "loss"] = np.nan
    df.loc[9, "D"] = None
    with pytest.raises(ValueError, match="drop_missing=True"):
        sl.frontier(df, N="N", D="D", bootstrap=0, progress=False)
    r = sl.frontier(df, N="N", D="D", bootstrap=0, drop_missing=True, progress=False)
    assert r["missing_dropped"] == 2 and r["missing_by_column"] == {"loss": 1, "D": 1}


def test_frontier_warns_about_repeated_seeds_and_aggregates_them():
    df = _isoflops(seeds=2)
    with pytest.warns(UserWarning, match='aggregate="mean"'):
        sl.frontier(df, N="N", D="D", bootstrap=0, progress=False)
    merged = sl.frontier(df, N="N", D="D", bootstrap=0, aggregate="mean", progress=False)
    assert merged["aggregate"]["groups"] == 35 and not any("seeds" in w for w in merged["warnings"])


def test_frontier_by_both_approaches_and_the_parametric_one():
    df = _isoflops()
    both = sl.frontier(df, "both", N="N", D="D", bootstrap=20, at=[1e22], progress=False)
    assert both["method"] == "both" and {"approach2", "approach3", "comparison"} <= set(both)
    parametric = sl.frontier(df, "parametric", N="N", D="D", bootstrap=0, progress=False)
    assert parametric["method"] == "parametric"
    assert abs(parametric["a"] - both["approach3"]["a"]) < 1e-9


def test_approach1_from_learning_curves():
    rows = []
    for k in range(6):
        N = 1e7 * 10 ** (k / 2.5)
        for D in np.geomspace(1e20 / (6 * N) / 100, 1e20 / (6 * N), 20):
            rows.append({"run": f"r{k}", "N": N, "tokens": D, "loss": 1.69 + 406.4 / N ** 0.34 + 410.7 / D ** 0.28})
    r = sl.frontier(pd.DataFrame(rows), "approach1", run="run", N="N", D="tokens", bootstrap=50, at=[1e22],
                    progress=False)
    assert r["method"] == "approach1" and r["runs"] == 6
    assert r["a_lo"] <= r["a"] <= r["a_hi"]
    with pytest.raises(ValueError, match="run="):
        sl.frontier(pd.DataFrame(rows), "approach1", N="N", D="tokens", progress=False)


def test_progress_reaches_a_callable_stage_by_stage():
    seen = []
    sl.fit(CHINCHILLA, "chinchilla", N="Model Size", C="Training FLOP", bootstrap=20,
           progress=lambda stage, done, total: seen.append((stage, done, total)))
    stages = {s for s, _, _ in seen}
    assert any("starts" in s for s in stages) and any("bootstrap" in s for s in stages), stages
    assert all(0 <= d <= t for _, d, t in seen)


def test_an_exception_from_progress_stops_the_fit():
    def stop(stage, done, total):
        if done > 0:
            raise KeyboardInterrupt
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        sl.fit(CHINCHILLA, "chinchilla", N="Model Size", C="Training FLOP", bootstrap=100000, threads=1, progress=stop)
    assert time.monotonic() - t < 30


def test_ctrl_c_stops_a_fit(deadline):
    # _thread.interrupt_main delivers SIGINT's handling to the main thread, as Ctrl-C does.
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    with deadline(60), pytest.raises(KeyboardInterrupt):
        sl.fit(CHINCHILLA, "chinchilla", N="Model Size", C="Training FLOP", bootstrap=100000, threads=1,
               progress=False)
    timer.cancel()


def test_a_large_dataframe_reaches_the_fitter_fast():
    n = 200_000
    df = pd.DataFrame({"N": np.geomspace(1e6, 1e9, n), "D": np.geomspace(1e8, 1e11, n), "loss": np.linspace(3, 2, n),
                       "name": ["run"] * n})
    t = time.monotonic()
    text = sl._csv_text(df)
    assert time.monotonic() - t < 2.0  # pandas' to_csv with every digit: about 3 s for this table
    first = text.split(b"\n")[1].split(b",")
    assert float(first[0]) == df["N"][0] and first[3] == b"run"


def test_exports_by_path_with_their_separators_and_formats(tmp_path):
    df = _isoflops()
    eu = tmp_path / "eu.csv"
    eu.write_text(df[["N", "D", "loss"]].to_csv(sep=";", decimal=",", index=False, float_format="%.17g"))
    lines = tmp_path / "runs.jsonl"
    lines.write_text(df[["N", "D", "loss"]].to_json(orient="records", lines=True, double_precision=15))
    reference = sl.frontier(df, N="N", D="D", bootstrap=0, progress=False)
    from_eu = sl.frontier(eu, N="N", D="D", sep=";", decimal=",", bootstrap=0, progress=False)
    from_lines = sl.frontier(lines, N="N", D="D", bootstrap=0, progress=False)
    assert from_eu["a"] == reference["a"]
    assert from_lines["a"] == pytest.approx(reference["a"], rel=1e-9)
    with pytest.raises(ValueError, match="sep="):
        sl.frontier(eu, N="N", D="D", bootstrap=0, progress=False)
    parquet = tmp_path / "runs.parquet"
    parquet.write_bytes(b"PAR1")
    with pytest.raises(ValueError, match="to_csv"):
        sl.fit(parquet, N="N", D="D", bootstrap=0, progress=False)
